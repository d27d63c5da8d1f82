#!/usr/bin/env bash
# The A/B boot script (deploy/uboot/boot.cmd) run by Debian's real U-Boot
# (trixie's u-boot-qemu, qemu_arm64; the Pi's rpi_arm64 build runs the same
# script) under trixie's qemu-system-aarch64, from a cached chroot (see
# ensure_boot_tools in deploy/lib.sh): which slot each boot picks, the attempt counts it
# saves, the fall back to the old slot once a new slot's attempts are used
# up, and a committed slot staying. The environment lives in qemu's second
# flash bank, a file the test reads and writes with fw_printenv/fw_setenv as
# RAUC's U-Boot backend does. The slots hold no kernel, so each boot is one
# qemu run that ends at the script's `reset` right after the choice. Files
# only; the last line is `uboot: N passed, M failed`.
#
#   Tests/deploy/uboot-slots.sh
set -euo pipefail
# shellcheck disable=SC2034 # PROG is used by deploy/lib.sh
PROG=uboot
# shellcheck source=deploy/lib.sh
source "$(dirname "$0")/../../deploy/lib.sh"
case ${1:-} in -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
need_root   # the tools' chroot
need mkimage u-boot-tools
need mcopy mtools
need mkfs.vfat dosfstools
need sfdisk fdisk
ensure_boot_tools
UBOOT=/usr/lib/u-boot/qemu_arm64/u-boot.bin

WORK=$(mktemp -d /tmp/cast-gateway-uboot-test-XXXXXX)
QEMU_PID=""
MOUNTS=()
KEEP=${KEEP:-0}
finish() {
    [ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null
    cleanup_mounts
    [ "$KEEP" = 1 ] || rm -rf "$WORK"
}
trap finish EXIT
# The test's files appear at the same path inside the tools' chroot.
chroot_mounts "$BOOT_TOOLS"
bind_mount "$WORK" "$BOOT_TOOLS$WORK"
in_tools() { chroot "$BOOT_TOOLS" "$@"; }

# The disk: the boot partition with boot.scr, then slots A and B and data
# (empty: the choice is made before anything is read from them).
DISK=$WORK/disk.img
truncate -s 48M "$DISK"
printf 'label: dos\nlabel-id: 0x0ca57ca5\n,16M,c\n,8M,83\n,8M,83\n,,83\n' | sfdisk -q "$DISK"
uboot_script "$WORK/boot.scr" "console=ttyAMA0 rootwait" "setenv kernel_comp_addr_r 0x48000000"
mkfs.vfat -n BOOT -C "$WORK/fat.img" $((16 * 1024)) > /dev/null
mcopy -i "$WORK/fat.img" "$WORK/boot.scr" ::boot.scr
dd if="$WORK/fat.img" of="$DISK" bs=1M seek=1 conv=notrunc status=none
# qemu_arm64 keeps its environment at the start of flash bank 1: 256 KiB.
ENV=$WORK/flash1.img
truncate -s 64M "$ENV"
echo "$ENV 0x0 0x40000 0x40000" > "$WORK/fw_env.config"
getenv() { in_tools fw_printenv -c "$WORK/fw_env.config" -n "$1" 2>/dev/null; }
setenv() {
    in_tools fw_setenv -c "$WORK/fw_env.config" "$@" 2>&1 \
        || give_up "fw_setenv $* could not write the environment U-Boot saved"
}

passed=0 failed=0
give_up() {  # give_up WHY: a step the remaining checks depend on failed
    echo "FAIL - $*"
    echo "uboot: $passed passed, $((failed + 1)) failed"
    exit 1
}
check() {  # check NAME EXPECTED SEEN
    if [ "$2" = "$3" ]; then
        echo "ok - $1"; passed=$((passed + 1))
    else
        echo "FAIL - $1: expected '$2', seen '$3'"; failed=$((failed + 1))
    fi
}

# boot NAME: one power-on, until the script's reset. Sets SLOT to the slot
# chosen ("none" when it chose none) and BOOTARGS to the kernel command line
# it made. A boot that did not reach the reset fails the test, with the tail
# of the console.
boots=0 SLOT="" BOOTARGS=""
boot() {
    local log=$WORK/boot-$((boots += 1)).log status=0
    chroot "$BOOT_TOOLS" qemu-system-aarch64 -M virt -cpu cortex-a53 -m 1024 -nographic -no-reboot -nic none \
        -bios "$UBOOT" -drive if=pflash,format=raw,index=1,file="$ENV" \
        -drive if=none,id=disk,format=raw,file="$DISK" -device virtio-blk-device,drive=disk \
        < /dev/null > "$log" 2>&1 &
    QEMU_PID=$!
    wait "$QEMU_PID" || status=$?
    QEMU_PID=""
    if [ "$status" -ne 0 ] || ! grep -q 'resetting \.\.\.' "$log"; then
        tail -20 "$log"
        give_up "$1: the boot did not end at the script's reset (qemu exit $status; its console above)"
    fi
    SLOT=$(sed -n 's/^cast-gateway: booting slot \([AB]\) .*/\1/p' "$log")
    SLOT=${SLOT:-none}
    BOOTARGS=$(sed -n 's/^cast-gateway: bootargs //p' "$log" | tr -d '\r')
}
counts() { echo "$(getenv BOOT_ORDER) / $(getenv BOOT_A_LEFT) $(getenv BOOT_B_LEFT)"; }

# 1. A new card: no environment yet (U-Boot's defaults), slot A.
boot "first boot"
check "first boot: slot A" A "$SLOT"
check "first boot: order and attempts saved" "A B / 2 3" "$(counts)"
check "first boot: the kernel is told its slot and root" \
    "console=ttyAMA0 rootwait root=PARTUUID=0ca57ca5-02 rauc.slot=A" "$BOOTARGS"
check "first boot: no key stops later boots" "-2" "$(getenv bootdelay)"

# 2. RAUC installed into B (its U-Boot backend: B first, 3 attempts).
setenv BOOT_ORDER "B A"
setenv BOOT_B_LEFT 3
boot "after an install"
check "after an install: slot B" B "$SLOT"
check "after an install: B has 2 attempts left" "B A / 2 2" "$(counts)"
check "after an install: root is partition 3" \
    "console=ttyAMA0 rootwait root=PARTUUID=0ca57ca5-03 rauc.slot=B" "$BOOTARGS"

# 3. B never commits: its two remaining attempts, then A by itself.
seen=""
for try in "B uncommitted, 2nd try" "B uncommitted, 3rd try" "B used up"; do boot "$try"; seen+=" $SLOT"; done
check "an uncommitted slot falls back: B, B, then A" " B B A" "$seen"
check "after the fall back: B has none left, A took one" "B A / 1 0" "$(counts)"

# 4. A committed slot (rauc status mark-good: attempts back to 3) stays.
setenv BOOT_A_LEFT 3
setenv BOOT_B_LEFT 3
seen=""
for try in "installed" "committed 1" "committed 2" "committed 3"; do
    boot "$try"
    seen+=" $SLOT"
    setenv BOOT_B_LEFT 3   # the commit after each boot
done
check "a committed slot keeps booting: B B B B" " B B B B" "$seen"

# 5. Both slots used up: each gets 3 more and the box restarts.
setenv BOOT_A_LEFT 0
setenv BOOT_B_LEFT 0
boot "both used up"
check "both used up: no slot this boot" none "$SLOT"
check "both used up: 3 attempts each again" "B A / 3 3" "$(counts)"
boot "after the reset"
check "both used up: the next boot takes the first slot" B "$SLOT"

echo "uboot: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
