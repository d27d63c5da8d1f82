#!/usr/bin/env bash
# deploy/flash on regular files and loop devices only (never a real disk):
# writes and verifies, --dry-run writes nothing, and it refuses mounted,
# system, non-removable (without --force), too-small and partition targets.
#
#   Tests/deploy/flash.sh
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
case ${1:-} in -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "flash-test: needs root (loop devices)" >&2; exit 1; }
FLASH=$REPO/deploy/flash
WORK=$(mktemp -d /tmp/cast-gateway-flash-test-XXXXXX)
loops=()
mounted=""
finish() {
    [ -n "$mounted" ] && umount "$mounted" 2>/dev/null
    for loop in "${loops[@]:-}"; do [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null; done
    rm -rf "$WORK"
}
trap finish EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
new_loop() {  # new_loop FILE SIZE_MIB: prints the loop device
    truncate -s "${2}M" "$1"
    local loop
    loop=$(losetup -f --show "$1")
    loops+=("$loop")
    echo "$loop"
}
# expect_refusal TEXT COMMAND...: the command fails with exit 2 naming TEXT.
expect_refusal() {
    local text=$1 rc=0
    shift
    "$@" > "$WORK/out" 2>&1 || rc=$?
    [ "$rc" = 2 ] && grep -q -- "$text" "$WORK/out" || { cat "$WORK/out"; fail "expected a refusal with '$text' (exit $rc): $*"; }
    echo "ok: refused ($text): ${*: -2}"
}

head -c $((8 * 1024 * 1024 + 4096)) /dev/urandom > "$WORK/image.img"
"$FLASH" --help | grep -q -- --dry-run || fail "--help"

# A regular file: written and verified.
"$FLASH" --yes "$WORK/image.img" "$WORK/target.img" > "$WORK/out" 2>&1 || { cat "$WORK/out"; fail "flashing a file"; }
grep -q "verified sha256 $(sha "$WORK/image.img")" "$WORK/out" || { cat "$WORK/out"; fail "no verification line"; }
[ "$(sha "$WORK/target.img")" = "$(sha "$WORK/image.img")" ] || fail "the target file differs from the image"
echo "ok: file written and verified"

# --dry-run writes nothing.
head -c 1048576 /dev/zero > "$WORK/untouched.img"
before=$(sha "$WORK/untouched.img")
"$FLASH" --dry-run --yes "$WORK/image.img" "$WORK/untouched.img" | grep -q "dry run" || fail "--dry-run says nothing"
[ "$(sha "$WORK/untouched.img")" = "$before" ] || fail "--dry-run wrote to the file"
loop=$(new_loop "$WORK/loop-backing" 16)
before=$(sha "$WORK/loop-backing")
"$FLASH" --dry-run --force "$WORK/image.img" "$loop" > /dev/null || fail "--dry-run on a loop device"
[ "$(sha "$WORK/loop-backing")" = "$before" ] || fail "--dry-run wrote to $loop"
echo "ok: --dry-run writes nothing (file and $loop)"

# Not confirmed: not a terminal and no --yes.
"$FLASH" --force "$WORK/image.img" "$loop" < /dev/null > "$WORK/out" 2>&1 && fail "wrote without --yes"
grep -q -- "--yes" "$WORK/out" || fail "no hint about --yes"
echo "ok: needs --yes when not on a terminal"

# A loop device is not removable: refused without --force, written with it.
expect_refusal "not removable" "$FLASH" --yes "$WORK/image.img" "$loop"
"$FLASH" --force --yes "$WORK/image.img" "$loop" > "$WORK/out" 2>&1 || { cat "$WORK/out"; fail "flashing $loop with --force"; }
grep -q "verified" "$WORK/out" || fail "no verification for $loop"
[ "$(head -c "$(stat -c %s "$WORK/image.img")" "$WORK/loop-backing" | sha256sum | cut -d' ' -f1)" = "$(sha "$WORK/image.img")" ] \
    || fail "$loop does not hold the image"
echo "ok: $loop written and verified with --force"

# Too small.
small=$(new_loop "$WORK/small-backing" 4)
expect_refusal "smaller" "$FLASH" --force --yes "$WORK/image.img" "$small"

# Mounted: refused even with --force.
mnt_loop=$(new_loop "$WORK/mounted-backing" 16)
mkfs.ext4 -q "$mnt_loop"
mkdir -p "$WORK/mnt" && mount "$mnt_loop" "$WORK/mnt" && mounted=$WORK/mnt
expect_refusal "in use" "$FLASH" --force --yes "$WORK/image.img" "$mnt_loop"
umount "$WORK/mnt" && mounted=""

# The running system's disk (marked through the test seam): refused even with --force.
FLASH_SYSTEM_DISKS=$mnt_loop expect_refusal "running system" "$FLASH" --force --yes "$WORK/image.img" "$mnt_loop"

# A partition instead of the whole disk.
part_loop=$(new_loop "$WORK/parted-backing" 32)
losetup -d "$part_loop"
printf 'label: dos\nstart=2048, size=40960, type=83\n' | sfdisk -q "$WORK/parted-backing"
part_loop=$(losetup -f --show -P "$WORK/parted-backing")
loops+=("$part_loop")
for _ in $(seq 1 20); do [ -b "${part_loop}p1" ] && break; sleep 0.1; done
if [ -b "${part_loop}p1" ]; then
    expect_refusal "partition" "$FLASH" --force --yes "$WORK/image.img" "${part_loop}p1"
else
    echo "skipped: this kernel shows no partitions of loop devices (${part_loop}p1)"
fi

# A missing image.
"$FLASH" --yes "$WORK/missing.img" "$WORK/target.img" > "$WORK/out" 2>&1 && fail "flashed a missing image"
grep -q "no image file" "$WORK/out" || fail "no clear error for a missing image"
echo "flash-test: all passed"
