#!/usr/bin/env bash
# The A/B boot script (deploy/uboot/boot.cmd) run by Debian's real U-Boot
# builds under qemu, both from trixie (a cached chroot, see
# ensure_boot_tools in deploy/lib.sh):
#   pi    u-boot-rpi's rpi_arm64 (the build the Pi 3, 4 and Zero 2 W boot)
#         on qemu's raspi3b, the environment in uboot.env on the FAT boot
#         partition of the SD card, as on a real Pi;
#   qemu  u-boot-qemu's qemu_arm64 on qemu's virt machine (the image boot
#         test's board). Its U-Boot keeps its own environment in flash,
#         which Debian's kernel cannot reach (no MTD physmap driver), so the
#         script keeps the A/B variables in uboot.env on the FAT partition
#         itself (the profile's uboot-env = script): the same file, in the
#         same format, as on the Pi.
# For each: which slot every boot picks, the attempt counts it saves, the
# fall back to the old slot once a new slot's attempts are used up, a
# committed slot staying, and both slots used up. The test reads and writes
# the environment with fw_printenv/fw_setenv, as RAUC's U-Boot backend does
# on the box. The slots hold no kernel, so each boot is one qemu run that
# ends at the script's `reset` right after the choice. Files only; the last
# line is `uboot: N passed, M failed`.
#
#   Tests/deploy/uboot-slots.sh [pi|qemu]...   (default: both)
set -euo pipefail
# shellcheck disable=SC2034 # PROG is used by deploy/lib.sh
PROG=uboot
# shellcheck source=deploy/lib.sh
source "$(dirname "$0")/../../deploy/lib.sh"
case ${1:-} in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
BOARDS=("$@")
[ ${#BOARDS[@]} -gt 0 ] || BOARDS=(pi qemu)
need_root   # the tools' chroot
need mkimage u-boot-tools
need mcopy mtools
need mkfs.vfat dosfstools
need sfdisk fdisk

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
ensure_boot_tools
# The test's files appear at the same path inside the tools' chroot.
chroot_mounts "$BOOT_TOOLS"
bind_mount "$WORK" "$BOOT_TOOLS$WORK"
in_tools() { chroot "$BOOT_TOOLS" "$@"; }

passed=0 failed=0
give_up() {  # give_up WHY: a step the remaining checks depend on failed
    echo "FAIL - $*"
    echo "uboot: $passed passed, $((failed + 1)) failed"
    exit 1
}
check() {  # check NAME EXPECTED SEEN
    if [ "$2" = "$3" ]; then
        echo "ok - $BOARD: $1"; passed=$((passed + 1))
    else
        echo "FAIL - $BOARD: $1: expected '$2', seen '$3'"; failed=$((failed + 1))
    fi
}

# new_disk BOOTARGS: the card, with boot.scr on the boot partition (at 1 MiB),
# then slots A and B and data (empty: the choice comes before any read).
# The load addresses and the environment's place are the board profile's.
new_disk() {
    DISK=$WORK/$BOARD-disk.img
    truncate -s 64M "$DISK"   # a power of two: qemu's SD card needs one
    printf 'label: dos\nlabel-id: 0x0ca57ca5\n,16M,c\n,8M,83\n,8M,83\n,,83\n' | sfdisk -q "$DISK"
    uboot_script "$WORK/boot.scr" "$1" "$REPO/boards/$PROFILE.conf"
    rm -f "$WORK/fat.img"
    mkfs.vfat -n BOOT -C "$WORK/fat.img" $((16 * 1024)) > /dev/null
    mcopy -i "$WORK/fat.img" "$WORK/boot.scr" ::boot.scr
    dd if="$WORK/fat.img" of="$DISK" bs=1M seek=1 conv=notrunc status=none
}
fat_on_disk() { echo "$DISK@@1M"; }

# The A/B variables, on both boards: uboot.env on the FAT partition, 16 KiB
# (deploy/rauc/fw_env.config), copied out and back with mtools; env_get
# NAME, env_set NAME VALUE. flash_get NAME: qemu's own environment (the start
# of flash bank 1, 256 KiB), where only U-Boot's saveenv writes.
env_config() {
    echo "$WORK/uboot.env 0x0 0x4000" > "$WORK/fw_env.config"
    rm -f "$WORK/uboot.env"
    mcopy -n -i "$(fat_on_disk)" ::uboot.env "$WORK/uboot.env" 2>/dev/null || true
}
env_get() { env_config; in_tools fw_printenv -c "$WORK/fw_env.config" -n "$1" 2>/dev/null; }
env_set() {
    env_config
    in_tools fw_setenv -c "$WORK/fw_env.config" "$@" 2>&1 \
        || give_up "$BOARD: fw_setenv $* could not write the environment U-Boot saved"
    mcopy -o -i "$(fat_on_disk)" "$WORK/uboot.env" ::uboot.env || give_up "$BOARD: cannot put uboot.env back"
}
flash_get() {
    echo "$FLASH 0x0 0x40000 0x40000" > "$WORK/flash_env.config"
    in_tools fw_printenv -c "$WORK/flash_env.config" -n "$1" 2>/dev/null
}
counts() { echo "$(env_get BOOT_ORDER) / $(env_get BOOT_A_LEFT) $(env_get BOOT_B_LEFT)"; }

# boot NAME: one power-on, until the script's reset. Sets SLOT to the slot
# chosen ("none" when it chose none) and BOOTARGS to the kernel command line
# it made. A boot that did not reach the reset fails the test, with the tail
# of the console.
boots=0 SLOT="" BOOTARGS=""
boot() {
    local log=$WORK/$BOARD-boot-$((boots += 1)).log status=0 machine
    case $BOARD in
        pi) machine=(-M raspi3b -kernel "$RPI_UBOOT" -dtb "$RPI_DTB" -drive "if=sd,format=raw,file=$DISK"
                -serial null -serial stdio) ;;   # the second UART is U-Boot's (mini UART)
        qemu) machine=(-M virt -cpu cortex-a53 -m 1024 -bios /usr/lib/u-boot/qemu_arm64/u-boot.bin
                -drive "if=pflash,format=raw,index=1,file=$FLASH"
                -drive "if=none,id=disk,format=raw,file=$DISK" -device "virtio-blk-device,drive=disk" -serial stdio) ;;
    esac
    chroot "$BOOT_TOOLS" qemu-system-aarch64 "${machine[@]}" -display none -monitor none -no-reboot -nic none \
        < /dev/null > "$log" 2>&1 &
    QEMU_PID=$!
    wait "$QEMU_PID" || status=$?
    QEMU_PID=""
    if [ "$status" -ne 0 ] || ! grep -q 'resetting \.\.\.' "$log"; then
        tail -20 "$log"
        give_up "$BOARD: $1: the boot did not end at the script's reset (qemu exit $status; its console above)"
    fi
    SLOT=$(sed -n 's/^cast-gateway: booting slot \([AB]\) .*/\1/p' "$log")
    SLOT=${SLOT:-none}
    BOOTARGS=$(sed -n 's/^cast-gateway: bootargs //p' "$log" | tr -d '\r')
}

scenarios() {  # scenarios CONSOLE
    local args="console=$1 rootwait" seen try
    new_disk "$args"
    # 1. A new card: no environment yet (U-Boot's defaults), slot A.
    boot "first boot"
    check "first boot: slot A" A "$SLOT"
    check "first boot: order and attempts saved" "A B / 2 3" "$(counts)"
    check "first boot: the kernel is told its slot and root" \
        "$args root=PARTUUID=0ca57ca5-02 rauc.slot=A" "$BOOTARGS"
    if [ "$BOARD" = pi ]; then
        check "first boot: no key stops later boots" "-2" "$(env_get bootdelay)"
    else
        check "first boot: no key stops later boots (U-Boot's own environment, flash)" "-2" "$(flash_get bootdelay)"
        check "first boot: the A/B variables are in uboot.env on the FAT, not only in flash" "A B" "$(env_get BOOT_ORDER)"
    fi

    # 2. RAUC installed into B (its U-Boot backend: B first, 3 attempts).
    env_set BOOT_ORDER "B A"
    env_set BOOT_B_LEFT 3
    boot "after an install"
    check "after an install: slot B" B "$SLOT"
    check "after an install: B has 2 attempts left" "B A / 2 2" "$(counts)"
    check "after an install: root is partition 3" "$args root=PARTUUID=0ca57ca5-03 rauc.slot=B" "$BOOTARGS"

    # 3. B never commits: its two remaining attempts, then A by itself.
    seen=""
    for try in "B uncommitted, 2nd try" "B uncommitted, 3rd try" "B used up"; do boot "$try"; seen+=" $SLOT"; done
    check "an uncommitted slot falls back: B, B, then A" " B B A" "$seen"
    check "after the fall back: B has none left, A took one" "B A / 1 0" "$(counts)"

    # 4. A committed slot (rauc status mark-good: attempts back to 3) stays.
    env_set BOOT_A_LEFT 3
    env_set BOOT_B_LEFT 3
    seen=""
    for try in "installed" "committed 1" "committed 2" "committed 3"; do
        boot "$try"
        seen+=" $SLOT"
        env_set BOOT_B_LEFT 3   # the commit after each boot
    done
    check "a committed slot keeps booting: B B B B" " B B B B" "$seen"

    # 5. Both slots used up: each gets 3 more and the box restarts.
    env_set BOOT_A_LEFT 0
    env_set BOOT_B_LEFT 0
    boot "both used up"
    check "both used up: no slot this boot" none "$SLOT"
    check "both used up: 3 attempts each again" "B A / 3 3" "$(counts)"
    boot "after the reset"
    check "both used up: the next boot takes the first slot" B "$SLOT"
}

for BOARD in "${BOARDS[@]}"; do
    case $BOARD in
        pi) RPI_UBOOT=$BOOT_TOOLS_RPI/u-boot.bin RPI_DTB=$BOOT_TOOLS_RPI/bcm2837-rpi-3-b.dtb PROFILE=rpi3
            scenarios tty0 ;;
        qemu) FLASH=$WORK/flash1.img PROFILE=qemu-arm64
            truncate -s 64M "$FLASH"
            scenarios ttyAMA0 ;;
        *) give_up "no board '$BOARD' (pi or qemu)" ;;
    esac
done
echo "uboot: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
