#!/usr/bin/env bash
# The virtual board: Debian's amd64 kernel under qemu (TCG, no network) with
# real kernel devices from its test drivers, running the gateway built on the
# host. Scenarios run inside the VM from the host's root (shared read-only
# over 9p); results come back through a writable share and are checked here.
#
#   Tests/board/run.sh [SCENARIO...]      (default: every scenario in Tests/board/scenarios)
#
# Needs root, qemu-system-x86, busybox-static, v4l-utils, ir-keytable, lirc,
# gcc and make (the test GPIO module is built against the kernel's headers).
# The kernel package is downloaded once into /var/cache/cast-gateway/board.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${CAST_GATEWAY_CACHE:-/var/cache/cast-gateway}/board
# The kernel Debian currently ships (linux-image-amd64's dependency), unless set.
KERNEL_PACKAGE=${KERNEL_PACKAGE:-$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')}
[ -n "$KERNEL_PACKAGE" ] || { echo "board: cannot tell which kernel package to use (apt-get update?)" >&2; exit 1; }
BIN=$(cd "$REPO" && swift build --show-bin-path)
for program in cast-gateway cast-receiver-sim; do
    [ -x "$BIN/$program" ] || { echo "board: no $program in $BIN: run 'swift build' first" >&2; exit 1; }
done
WORK=$(mktemp -d /tmp/cast-gateway-board-XXXXXX)
[ -n "${KEEP_BOARD:-}" ] && echo "board: keeping $WORK" || trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE"

# 1. The kernel and its modules (cached per kernel package).
CACHE=$CACHE/$KERNEL_PACKAGE
mkdir -p "$CACHE"
if ! ls "$CACHE"/kernel/boot/vmlinuz-* >/dev/null 2>&1; then
    (cd "$CACHE" && apt-get download "$KERNEL_PACKAGE" >/dev/null 2>&1) || { echo "board: cannot download $KERNEL_PACKAGE" >&2; exit 1; }
    rm -rf "$CACHE/kernel" && mkdir "$CACHE/kernel"
    dpkg-deb -x "$CACHE"/"$KERNEL_PACKAGE"_*.deb "$CACHE/kernel"
fi
VERSION=$(basename "$(ls -d "$CACHE"/kernel/lib/modules/*)")

# The test-only GPIO chip module, built against the matching headers, which
# deploy/install-build-deps.sh installs (linux-headers-amd64): the test
# itself changes nothing on the host.
if [ ! -d "/usr/src/linux-headers-$VERSION" ]; then
    echo "board: linux-headers-$VERSION is not installed; run deploy/install-build-deps.sh (it installs linux-headers-amd64)" >&2
    exit 1
fi
GPIO_BUILD=$WORK/gpio-module
mkdir -p "$GPIO_BUILD"
cp "$REPO"/Tests/board/gpio-test-module/{cg_gpio_test.c,Kbuild} "$GPIO_BUILD/"
make -s -C "/usr/src/linux-headers-$VERSION" M="$GPIO_BUILD" modules >/dev/null 2>&1 \
    || { echo "board: cannot build the test GPIO module against linux-headers-$VERSION" >&2; exit 1; }
[ -f "$CACHE/kernel/lib/modules/$VERSION/modules.dep" ] || depmod -b "$CACHE/kernel" "$VERSION"

# 2. An initramfs: static busybox, the modules (dependencies first), and /init.
INITRD=$WORK/initrd
mkdir -p "$INITRD"/{bin,proc,sys,dev,newroot,modules}
cp /bin/busybox "$INITRD/bin/busybox"
MODULE_DIR=$CACHE/kernel/lib/modules/$VERSION
order=()
add_module() {  # depth-first: dependencies before the module
    local path=$1 dep
    for dep in $(grep -E "^$path:" "$MODULE_DIR/modules.dep" | cut -d: -f2); do add_module "$dep"; done
    for done_path in "${order[@]:-}"; do [ "$done_path" = "$path" ] && return; done
    order+=("$path")
}
for name in virtio_pci 9pnet_virtio 9p evdev rc-loopback ir-nec-decoder vivid; do
    path=$(grep -oE "^[^:]*/$name\.ko[^:]*" "$MODULE_DIR/modules.dep" | head -1)
    [ -n "$path" ] || { echo "board: module $name not found in $VERSION" >&2; exit 1; }
    add_module "$path"
done
: > "$INITRD/modules/order"
for path in "${order[@]}"; do
    cp "$MODULE_DIR/$path" "$INITRD/modules/"
    echo "$(basename "$path")" >> "$INITRD/modules/order"
done
cp "$GPIO_BUILD/cg_gpio_test.ko" "$INITRD/modules/"
echo cg_gpio_test.ko >> "$INITRD/modules/order"
cat > "$INITRD/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for module in $(cat /modules/order); do
    case $module in
        vivid.ko) insmod /modules/$module n_devs=1 num_inputs=1 num_outputs=1 input_types=3 output_types=1 ;;
        *) insmod /modules/$module ;;
    esac
done
ip link set lo up
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 hostroot /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 work /newroot/mnt
# The repository gets its own share: the VM puts fresh tmpfs over /tmp,
# /root and friends, where a checkout may well live.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 repo /newroot/mnt/repo
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
exec switch_root /newroot /bin/bash /mnt/boot.sh
INIT
chmod +x "$INITRD/init"
(cd "$INITRD" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$WORK/initrd.gz"

# 3. One VM boot per scenario.
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("$REPO"/Tests/board/scenarios/*.sh)
failed=0
case "$BIN" in
    "$REPO"/*) VM_BIN=/mnt/repo/${BIN#"$REPO"/} ;;
    *) echo "board: the build directory $BIN must be inside the repository" >&2; exit 1 ;;
esac
for scenario in "${scenarios[@]}"; do
    scenario=$(realpath "$scenario")
    case "$scenario" in
        "$REPO"/*) vm_scenario=/mnt/repo/${scenario#"$REPO"/} ;;
        *) echo "board: scenario $scenario must be inside the repository" >&2; exit 1 ;;
    esac
    name=$(basename "$scenario" .sh)
    SHARE=$WORK/share-$name
    mkdir -p "$SHARE/repo" "$SHARE/modules"
    # For scenarios that unload and reload a device's driver mid-run.
    for module in vivid rc-loopback; do cp "$INITRD"/modules/"$module".ko* "$SHARE/modules/"; done
    cat > "$SHARE/boot.sh" <<BOOT
#!/bin/bash
# PID 1 inside the VM: private writable directories, then the scenario.
for dir in /tmp /run /var/tmp /var/log /var/lib /root; do mount -t tmpfs tmpfs \$dir; done
mkdir -p /run/lirc
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin BIN="$VM_BIN" RESULTS=/mnt
bash "$vm_scenario" > /mnt/scenario.log 2>&1
echo "exit=\$?" >> /mnt/scenario.log
echo o > /proc/sysrq-trigger
sleep 10
BOOT
    started=$(date +%s)
    timeout 300 qemu-system-x86_64 -accel tcg -m 1024 -smp 2 -nographic -nic none -no-reboot \
        -kernel "$CACHE/kernel/boot/vmlinuz-$VERSION" -initrd "$WORK/initrd.gz" \
        -append "console=ttyS0 quiet panic=-1 sysrq_always_enabled=1" \
        -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
        -virtfs local,path="$SHARE",mount_tag=work,security_model=none \
        -virtfs local,path="$REPO",mount_tag=repo,security_model=none,readonly=on,multidevs=remap \
        < /dev/null > "$SHARE/console.log" 2>&1 || true
    if grep -q "^exit=0" "$SHARE/scenario.log" 2>/dev/null; then
        echo "board: $name passed ($(( $(date +%s) - started )) s)"
    else
        failed=$((failed + 1))
        echo "board: $name FAILED; scenario log:" >&2
        if [ -s "$SHARE/scenario.log" ]; then tail -40 "$SHARE/scenario.log" >&2; else tail -40 "$SHARE/console.log" >&2; fi
    fi
done
total=${#scenarios[@]}
echo "board: $((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
