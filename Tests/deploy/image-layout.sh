#!/usr/bin/env bash
# The image's partition layout, without booting anything: deploy/lib.sh's
# pack_image on small directories (files only, no loop devices), and with
# --image FILE the same layout checks plus the A/B files on an image that
# deploy/image built. A/B layout: MBR with the fixed disk id, 1 boot FAT32
# (bootable, at 4 MiB), 2 root A and 3 root B of the same size (B all
# zeros and unallocated in the file), 4 data ext4; each partition on a 4 MiB
# boundary. The last line is `image-layout: N passed, M failed`.
#
#   Tests/deploy/image-layout.sh [--image FILE [--board NAME]]
set -euo pipefail
# shellcheck disable=SC2034 # PROG is used by deploy/lib.sh
PROG=image-layout
# shellcheck source=deploy/lib.sh
source "$(dirname "$0")/../../deploy/lib.sh"
IMAGE="" BOARD=qemu-arm64
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        --image) IMAGE=${2:?--image needs a file}; shift 2 ;;
        --board) BOARD=${2:?--board needs a name}; shift 2 ;;
        *) echo "image-layout: unknown argument '$1' (try --help)" >&2; exit 64 ;;
    esac
done
need sfdisk fdisk
need mcopy mtools
need debugfs e2fsprogs
need mkfs.vfat dosfstools
need python3 python3
WORK=$(mktemp -d /tmp/cast-gateway-image-layout-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
passed=0 failed=0
check() {  # check NAME EXPECTED SEEN
    if [ "$2" = "$3" ]; then
        echo "ok - $1"; passed=$((passed + 1))
    else
        echo "FAIL - $1: expected '$2', seen '$3'"; failed=$((failed + 1))
    fi
}

# part FIELD N IMAGE: start or size (in 512-byte sectors), type or bootable
# of partition N, from sfdisk's dump.
part() {
    sfdisk -d "$3" | awk -v n="$2" -v f="$1" '
        /^[^ ]+ : start=/ { i++; if (i != n) next
            if (f == "bootable") { print ($0 ~ /bootable/) ? "yes" : "no"; exit }
            sub(".*" f "= *", ""); sub(/,.*/, ""); print; exit }'
}
# extract N IMAGE OUT: partition N as a file (sparse).
extract() {
    dd if="$2" of="$3" bs=512 skip="$(part start "$1" "$2")" count="$(part size "$1" "$2")" conv=sparse status=none
}
# fs_label FILE: the label of the file system in FILE.
fs_label() { blkid -p -o value -s LABEL "$1" 2>/dev/null || echo none; }
# ext_cat FILE PATH: a file from an ext4 image.
ext_cat() { debugfs -R "cat $2" "$1" 2>/dev/null; }
# ext_owner FILE PATH: uid:gid mode of a path in an ext4 image.
ext_owner() { debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/.*User: *\([0-9]*\) *Group: *\([0-9]*\).*/\1:\2/p'; }
# data_in IMAGE START_SECTOR SECTORS: "none" when no byte of the range is
# allocated in the file (SEEK_DATA), else where data starts.
data_in() {
    python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
start, end = int(sys.argv[2]) * 512, (int(sys.argv[2]) + int(sys.argv[3])) * 512
try:
    at = os.lseek(fd, start, os.SEEK_DATA)
except OSError:
    at = end
print("none" if at >= end else "at byte %d" % at)' "$1" "$2" "$3"
}

# layout IMAGE NAME: the A/B partition table and file systems.
layout() {
    local img=$1 t=$2 n mib=$((1024 * 1024 / 512))
    # (an MBR partition's PARTUUID is <disk id>-0N: what system.conf names)
    check "$t: MBR with the fixed disk id" "dos $IMAGE_DISK_ID" \
        "$(sfdisk -d "$img" | sed -n 's/^label: //p') $(sfdisk -d "$img" | sed -n 's/^label-id: //p')"
    check "$t: four partitions" 4 "$(sfdisk -d "$img" | grep -c '^[^ ]* : start=')"
    check "$t: 1 is the bootable FAT32 (LBA) partition at 4 MiB" "$((4 * mib)) c yes" \
        "$(part start 1 "$img") $(part type 1 "$img") $(part bootable 1 "$img")"
    for n in 2 3 4; do
        check "$t: partition $n is Linux, starts on a 4 MiB boundary" "83 0" \
            "$(part type "$n" "$img") $(( $(part start "$n" "$img") % (4 * mib) ))"
    done
    check "$t: slot B is as big as slot A" "$(part size 2 "$img")" "$(part size 3 "$img")"
    check "$t: the partitions follow each other, data last to the end" \
        "$(( $(part start 1 "$img") + $(part size 1 "$img") )) $(( $(part start 2 "$img") + $(part size 2 "$img") )) $(( $(part start 3 "$img") + $(part size 3 "$img") )) $(( $(stat -c %s "$img") / 512 ))" \
        "$(part start 2 "$img") $(part start 3 "$img") $(part start 4 "$img") $(( $(part start 4 "$img") + $(part size 4 "$img") ))"
    check "$t: slot B takes no space in the file (sparse, never written)" none \
        "$(data_in "$img" "$(part start 3 "$img")" "$(part size 3 "$img")")"
    extract 1 "$img" "$WORK/p1"
    extract 2 "$img" "$WORK/p2"
    extract 4 "$img" "$WORK/p4"
    check "$t: file systems: boot, root A, data" "RASPIFIRM RASPIROOT $IMAGE_DATA_LABEL" \
        "$(fs_label "$WORK/p1") $(fs_label "$WORK/p2") $(fs_label "$WORK/p4")"
    check "$t: root A and data are ext4" "ext4 ext4" \
        "$(blkid -p -o value -s TYPE "$WORK/p2") $(blkid -p -o value -s TYPE "$WORK/p4")"
}

# 1. pack_image on small directories.
mkdir -p "$WORK/fat" "$WORK/root/etc" "$WORK/data/cast-gateway"
echo boot-marker > "$WORK/fat/boot.scr"
echo root-marker > "$WORK/root/etc/marker"
echo state > "$WORK/data/cast-gateway/state"
chown -R 4242:4343 "$WORK/data/cast-gateway"
# 41 and 15 MiB: sizes that are no 4 MiB steps are rounded up to them.
pack_image "$WORK/ab.img" "$WORK/fat" "$WORK/root" 41 "$WORK/data" 15
layout "$WORK/ab.img" "pack_image A/B"
check "pack_image A/B: slot A 41 MiB rounded to 44, data 15 to 16" "44 16" \
    "$(( $(part size 2 "$WORK/ab.img") / 2048 )) $(( $(part size 4 "$WORK/ab.img") / 2048 ))"
check "pack_image A/B: the boot partition's file" boot-marker "$(mtype -i "$WORK/p1" ::boot.scr 2>/dev/null)"
check "pack_image A/B: the root's file" root-marker "$(ext_cat "$WORK/p2" /etc/marker)"
check "pack_image A/B: the data's file, its owner kept" "state 4242:4343" \
    "$(ext_cat "$WORK/p4" /cast-gateway/state) $(ext_owner "$WORK/p4" /cast-gateway/state)"
pack_image "$WORK/one.img" "$WORK/fat" "$WORK/root" 40
check "pack_image without a data directory: boot and one root (amd64)" "2 RASPIROOT" \
    "$(sfdisk -d "$WORK/one.img" | grep -c '^[^ ]* : start=') $(extract 2 "$WORK/one.img" "$WORK/q2" && fs_label "$WORK/q2")"
head -c 6M /dev/urandom > "$WORK/root/big"
if err=$( (pack_image "$WORK/small.img" "$WORK/fat" "$WORK/root" 1 "$WORK/data" 16) 2>&1 ); then
    check "pack_image refuses a root that does not fit its slot" "a failure" "success"
else
    check "pack_image refuses a root that does not fit its slot, and says so" yes \
        "$(grep -q 'mkfs.ext4 -d of the root file system failed (4 MiB' <<<"$err" && echo yes || echo "no: $err")"
fi

# 2. A built image: the same layout, and the A/B files deploy/image put there.
if [ -n "$IMAGE" ]; then
    [ -f "$IMAGE" ] || { echo "image-layout: no image $IMAGE (build one with deploy/image --board $BOARD)" >&2; exit 1; }
    t="$(basename "$IMAGE")"
    layout "$IMAGE" "$t"
    check "$t: boot.scr (the A/B boot script) on the boot partition" yes \
        "$(mtype -i "$WORK/p1" ::boot.scr 2>/dev/null | grep -qa 'BOOT_ORDER' && echo yes || echo no)"
    case $BOARD in
        rpi*)
            check "$t: the Pi's firmware starts U-Boot (config.txt kernel=u-boot.bin, u-boot.bin there)" "kernel=u-boot.bin yes" \
                "$(mtype -i "$WORK/p1" ::config.txt | tr -d '\r' | grep '^kernel=' | tail -1) $(mdir -b -i "$WORK/p1" ::u-boot.bin > /dev/null 2>&1 && echo yes || echo no)" ;;
    esac
    conf=$(ext_cat "$WORK/p2" /etc/rauc/system.conf)
    check "$t: RAUC's system.conf names the slots by PARTUUID, its status on /data" \
        "cast-gateway-$BOARD /dev/disk/by-partuuid/${IMAGE_DISK_ID#0x}-02 /dev/disk/by-partuuid/${IMAGE_DISK_ID#0x}-03 /data/rauc" \
        "$(sed -n 's/^compatible=//p' <<<"$conf") $(sed -n 's/^device=//p' <<<"$conf" | xargs) $(sed -n 's/^data-directory=//p' <<<"$conf")"
    fstab=$(ext_cat "$WORK/p2" /etc/fstab)
    check "$t: fstab mounts the data partition at /data and /var/lib/cast-gateway from it" "yes yes" \
        "$(grep -Eq "^LABEL=${IMAGE_DATA_LABEL}[[:space:]]+/data[[:space:]]+ext4" <<<"$fstab" && echo yes || echo no) $(grep -Eq '^/data/cast-gateway[[:space:]]+/var/lib/cast-gateway[[:space:]]+none[[:space:]]+bind' <<<"$fstab" && echo yes || echo no)"
    check "$t: sshd's host keys are on /data" "/data/ssh/ssh_host_ed25519_key" \
        "$(ext_cat "$WORK/p2" /etc/ssh/sshd_config.d/cast-gateway-host-keys.conf | sed -n 's/^HostKey //p' | grep ed25519)"
    check "$t: no ssh host keys and an empty machine id in the root (each box makes its own)" "0 0" \
        "$(debugfs -R 'ls /etc/ssh' "$WORK/p2" 2>/dev/null | grep -c 'ssh_host_' || true) $(ext_cat "$WORK/p2" /etc/machine-id | wc -c)"
    for f in /usr/lib/cast-gateway/rauc/commit-slot /usr/lib/cast-gateway/rauc/pre-install /etc/fw_env.config \
        /etc/systemd/system/multi-user.target.wants/cast-gateway-commit.service \
        /usr/lib/cast-gateway/rauc/install-request /etc/systemd/system/cast-gateway-update.service \
        /etc/systemd/system/multi-user.target.wants/cast-gateway-update.path /usr/lib/tmpfiles.d/cast-gateway-update.conf \
        /usr/bin/curl; do
        check "$t: $f in the root" yes "$(debugfs -R "stat $f" "$WORK/p2" 2>&1 | grep -q 'Inode:' && echo yes || echo no)"
    done
    check "$t: the data partition holds the gateway's state (owned by its user), ssh, rauc" "cast-gateway rauc ssh" \
        "$(debugfs -R 'ls -p /' "$WORK/p4" 2>/dev/null | awk -F/ '$6 != "" && $6 != "." && $6 != ".." && $6 != "lost+found" {print $6}' | sort | xargs)"
fi
echo "image-layout: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
