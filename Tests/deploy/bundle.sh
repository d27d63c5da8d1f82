#!/usr/bin/env bash
# deploy/bundle and the device side of field updates (deploy/rauc/) with the
# host's RAUC, on loop devices and files only (never a real disk):
#
#   Tests/deploy/bundle.sh [--keep]
#     --keep   leave the work directory (printed) for a look afterwards
#
# Two 12 MiB loop devices are slots A (booted, version 1.0) and B; the U-Boot
# environment is a file (fw_printenv -c). A private dbus-daemon carries the
# system bus (DBUS_SYSTEM_BUS_ADDRESS) for `rauc service`, which uses
# deploy/rauc/system.conf with the slots filled in. Everything runs in a
# private mount namespace (unshare -m) in which /etc is an overlay (for
# /etc/fw_env.config and /etc/cast-gateway/release) and /run a tmpfs (for
# /run/rauc-cast-gateway/allow-downgrade): the host's /etc and /run are not
# written.
#
# Cases: a good bundle installs into B (B holds the image, BOOT_ORDER starts
# with B, B's counter reset, A unchanged); refused with nothing written: a
# changed payload byte, another signer, a downgrade (installed with the
# allow-downgrade file), an image larger than the slot, a wrong compatible;
# verity bundles (the board's format) are checked in user space, and the
# board's bundle-formats refuses plain ones; deploy/bundle refuses a version
# the image contradicts, a key not matching the certificate, an unknown
# board, and fails clearly when its temp space is full.
#
# The host's kernel has no device-mapper, so installs here use plain
# bundles (system.conf's bundle-formats=verity is changed to plain for the
# test); the board installs verity bundles. Updates from the fleet
# (deploy/rauc/install-request): bundles served by python3's http.server on
# 127.0.0.1; a wrong SHA-256, a 404 and a file:// request fail with nothing
# written, a good request installs into B and writes its progress. Last line:
# `bundle: N passed, M failed`. Needs root, rauc, squashfs-tools,
# libubootenv-tool, dbus, libglib2.0-bin (gdbus), e2fsprogs, openssl,
# util-linux, curl, python3.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
KEEP=0
case ${1:-} in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --keep) KEEP=1 ;;
    "") ;;
    *) echo "bundle-test: unknown argument '$1' (try --help)" >&2; exit 64 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "bundle-test: needs root (loop devices, mounts)" >&2; exit 1; }
for tool in rauc:rauc mksquashfs:squashfs-tools fw_printenv:libubootenv-tool fw_setenv:libubootenv-tool \
    dbus-daemon:dbus gdbus:libglib2.0-bin mkfs.ext4:e2fsprogs debugfs:e2fsprogs openssl:openssl \
    unshare:util-linux losetup:mount blockdev:util-linux curl:curl python3:python3; do
    command -v "${tool%%:*}" >/dev/null || { echo "bundle-test: ${tool%%:*} not installed: apt-get install ${tool#*:}" >&2; exit 1; }
done
# Into a private mount namespace (mounts made below vanish with it).
if [ "${CAST_GATEWAY_BUNDLE_TEST_NS:-}" != "$$" ]; then
    CAST_GATEWAY_BUNDLE_TEST_NS=$$ exec unshare --mount --propagation private -- "$BASH" "$0" "$@"
fi

WORK=$(mktemp -d /tmp/cast-gateway-bundle-test-XXXXXX)
LOOPS=() PIDS=() MNTS=()
finish() {
    local pid i loop
    for pid in "${PIDS[@]:-}"; do
        [ -n "$pid" ] || continue
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    for ((i = ${#MNTS[@]} - 1; i >= 0; i--)); do umount "${MNTS[$i]}" 2>/dev/null || umount -l "${MNTS[$i]}" 2>/dev/null || true; done
    for loop in "${LOOPS[@]:-}"; do [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null || true; done
    if [ "$KEEP" = 1 ]; then echo "bundle-test: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap finish EXIT
trap 'exit 130' INT TERM
# shellcheck source=Tests/deploy/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh"
sha() { sha256sum "$1" | cut -d' ' -f1; }
# expect WHY COMMAND...: the command succeeds, or the case fails saying why.
expect() { local why=$1; shift; "$@" || { log "expected: $why"; return 1; }; }
envvar() { fw_printenv -c "$WORK/fw_env.config" -n "$1" 2>/dev/null; }

# --- the "running system": mounts, slots, U-Boot environment ----------------
mkdir -p "$WORK"/{etc.upper,etc.work,run,mnt,data,keys,images,bundles}
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$WORK/etc.upper,workdir=$WORK/etc.work" /etc
MNTS+=(/etc)
mount -t tmpfs -o mode=755,size=16M tmpfs /run
MNTS+=(/run)
mkdir -p /etc/cast-gateway
echo "VERSION=1.0" > /etc/cast-gateway/release

new_loop() {  # new_loop VARIABLE FILE SIZE_MIB: a loop device on a new file, in VARIABLE
    truncate -s "${3}M" "$2"
    local loop
    loop=$(losetup -f --show "$2")
    LOOPS+=("$loop")
    printf -v "$1" %s "$loop"
}
# rootfs FILE VERSION SIZE_MIB: an ext4 image with /etc/cast-gateway/release.
rootfs() {
    local dir=$WORK/images/tree-$2
    mkdir -p "$dir/etc/cast-gateway" "$dir/usr/lib"
    echo "VERSION=$2" > "$dir/etc/cast-gateway/release"
    head -c 300000 /dev/urandom > "$dir/usr/lib/payload-$2.bin"
    truncate -s "${3}M" "$1"
    mkfs.ext4 -q -F -L rootfs -d "$dir" "$1"
}
rootfs "$WORK/images/a-1.0.ext4" 1.0 8
new_loop SLOT_A "$WORK/slot-a.img" 12
new_loop SLOT_B "$WORK/slot-b.img" 12
dd if="$WORK/images/a-1.0.ext4" of="$SLOT_A" bs=1M conv=fsync status=none
head -c $((12 * 1024 * 1024)) /dev/urandom > "$SLOT_B"

printf '%s\t0x0000\t0x4000\n' "$WORK/uboot.env" > "$WORK/fw_env.config"
cp "$WORK/fw_env.config" /etc/fw_env.config  # the overlay: RAUC's fw_setenv reads it
truncate -s 16K "$WORK/uboot.env"
printf 'BOOT_ORDER=A B\nBOOT_A_LEFT=3\nBOOT_B_LEFT=3\n' > "$WORK/uboot.defaults"
fw_setenv -c "$WORK/fw_env.config" -f "$WORK/uboot.defaults" BOOT_A_LEFT 3 2>/dev/null
[ "$(envvar BOOT_ORDER)" = "A B" ] || { echo "bundle-test: cannot create the U-Boot environment file" >&2; exit 1; }
cp "$WORK/uboot.env" "$WORK/uboot.env.booted-a"

# system.conf from the template, with the test's slots and this host's format.
render_conf() {  # render_conf OUTPUT [sed expression...]
    local out=$1
    shift
    sed -e "s|@COMPATIBLE@|cast-gateway-test|" -e "s|@ROOTFS_A@|$SLOT_A|" -e "s|@ROOTFS_B@|$SLOT_B|" \
        -e "s|@DATA_DIRECTORY@|$WORK/data|" \
        -e "s|^pre-install=.*|pre-install=$REPO/deploy/rauc/pre-install|" \
        -e "s|^path=/etc/rauc/ca.cert.pem|path=$WORK/keys/ca.cert.pem|" "$@" "$REPO/deploy/rauc/system.conf" > "$out"
    ! grep -v '^#' "$out" | grep -q '@[A-Z_]*@' \
        || { echo "bundle-test: placeholders left in $out: $(grep -v '^#' "$out" | grep -o '@[A-Z_]*@' | xargs)" >&2; exit 1; }
}
render_conf "$WORK/board.conf"
render_conf "$WORK/system.conf" -e "s|^bundle-formats=verity|bundle-formats=plain|"
grep -q "^bundle-formats=plain" "$WORK/system.conf" && grep -q "^pre-install=$REPO" "$WORK/system.conf" \
    || { echo "bundle-test: deploy/rauc/system.conf changed shape (bundle-formats=verity / pre-install= lines)" >&2; exit 1; }

# --- keys and bundles ---------------------------------------------------------
keypair() {  # keypair NAME
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -sha256 -subj "/O=cast-gateway test/CN=$1" \
        -keyout "$WORK/keys/$1.key.pem" -out "$WORK/keys/$1.cert.pem" 2>/dev/null
}
keypair signing
keypair other
cp "$WORK/keys/signing.cert.pem" "$WORK/keys/ca.cert.pem"
# bundle NAME IMAGE VERSION [deploy/bundle options...]: prints nothing; fails the run if deploy/bundle fails.
bundle() {
    local name=$1 image=$2 version=$3
    shift 3
    "$REPO/deploy/bundle" --rootfs "$image" --version "$version" --key "$WORK/keys/signing.key.pem" \
        --cert "$WORK/keys/signing.cert.pem" --compatible cast-gateway-test --format plain \
        --output "$WORK/bundles/$name.raucb" "$@" > "$WORK/bundles/$name.log" 2>&1 \
        || { cat "$WORK/bundles/$name.log" >&2; echo "bundle-test: deploy/bundle failed for $name" >&2; exit 1; }
}
rootfs "$WORK/images/2.0.ext4" 2.0 8
rootfs "$WORK/images/0.9.ext4" 0.9 8
rootfs "$WORK/images/3.0-big.ext4" 3.0 16
bundle good "$WORK/images/2.0.ext4" 2.0
bundle downgrade "$WORK/images/0.9.ext4" 0.9
bundle big "$WORK/images/3.0-big.ext4" 3.0
bundle wrong-compatible "$WORK/images/2.0.ext4" 2.0 --compatible cast-gateway-other
bundle other-key "$WORK/images/2.0.ext4" 2.0 --key "$WORK/keys/other.key.pem" --cert "$WORK/keys/other.cert.pem"
bundle verity "$WORK/images/2.0.ext4" 2.0 --format verity
# One byte changed in the payload (the squashfs, in front of the signature).
flip_byte() {  # flip_byte IN OUT OFFSET
    cp "$1" "$2"
    local byte
    byte=$(od -An -tu1 -j "$3" -N1 "$2" | tr -d ' ')
    printf "\\$(printf '%03o' $(( (byte + 1) % 256 )))" | dd of="$2" bs=1 seek="$3" conv=notrunc status=none
}
# Half way in is squashfs for both formats (the signature or hash tree is a
# few KiB at the end).
flip_byte "$WORK/bundles/good.raucb" "$WORK/bundles/tampered.raucb" $(( $(stat -c %s "$WORK/bundles/good.raucb") / 2 ))
flip_byte "$WORK/bundles/verity.raucb" "$WORK/bundles/verity-tampered.raucb" $(( $(stat -c %s "$WORK/bundles/verity.raucb") / 2 ))

# --- the private system bus and rauc service ----------------------------------
sed "s|@LISTEN@|unix:path=$WORK/system_bus_socket|" "$REPO/Tests/support/private-system-bus.conf" > "$WORK/bus.conf"
# dbus-daemon prints its address once it listens: reading it is the wait.
coproc DBUS { exec dbus-daemon --config-file="$WORK/bus.conf" --nofork --nopidfile --print-address=1 2> "$WORK/dbus.log"; }
PIDS+=("$DBUS_PID")
read -r -t 30 address <&"${DBUS[0]}" || { cat "$WORK/dbus.log" >&2; echo "bundle-test: the private dbus-daemon did not start" >&2; exit 1; }
export DBUS_SYSTEM_BUS_ADDRESS=$address
# The box's identity that the bundle's hook carries into a new slot
# (CAST_GATEWAY_CARRY_ROOT: the hook reads it instead of /, through the
# service's environment).
CARRY=$WORK/carry
mkdir -p "$CARRY/etc" "$CARRY/root/.ssh"
echo 0123456789abcdef0123456789abcdef > "$CARRY/etc/machine-id"
echo room-214 > "$CARRY/etc/hostname"
echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBundleTestKeyForTheCarryCase installer" > "$CARRY/root/.ssh/authorized_keys"
ln -s /usr/share/zoneinfo/Europe/Berlin "$CARRY/etc/localtime"
export CAST_GATEWAY_CARRY_ROOT=$CARRY
SERVICE_PID=""
# start_service CONF [BOOTNAME]: rauc service on the private bus, booted from
# A (or BOOTNAME); returns once it owns its name.
start_service() {
    stop_service
    echo "--- rauc service --conf=$1 booted from ${2:-A}" >> "$WORK/service.log"
    rauc service --conf="$1" --mount="$WORK/mnt" --override-boot-slot="${2:-A}" >> "$WORK/service.log" 2>&1 &
    SERVICE_PID=$!
    PIDS+=("$SERVICE_PID")
    if ! gdbus wait --system --timeout 30 de.pengutronix.rauc 2>> "$WORK/service.log" || ! kill -0 "$SERVICE_PID" 2>/dev/null; then
        cat "$WORK/service.log" >&2
        echo "bundle-test: rauc service did not come up on the private bus" >&2
        exit 1
    fi
}
stop_service() {
    [ -n "$SERVICE_PID" ] || return 0
    kill "$SERVICE_PID" 2>/dev/null || true
    wait "$SERVICE_PID" 2>/dev/null || true
    SERVICE_PID=""
}
# install BUNDLE: rauc install through the service; its output in
# $WORK/install.out, what the service logged meanwhile in $WORK/service.out
# (RAUC 1.8's client shows only "Pre-install handler error: Child process
# exited with code 1"; the handler's reason is in the service's log).
install() {
    local rc=0 before
    before=$(wc -l < "$WORK/service.log")
    rauc install "$1" > "$WORK/install.out" 2>&1 || rc=$?
    tail -n +$((before + 1)) "$WORK/service.log" > "$WORK/service.out"
    log "rauc install $(basename "$1") (exit $rc):"
    sed 's/^/  | /' "$WORK/install.out" >> "$WORK/case.log"
    log "rauc service meanwhile:"
    sed 's/^/  # /' "$WORK/service.out" >> "$WORK/case.log"
    return "$rc"
}
# snapshot / unchanged: A, B and the environment byte for byte.
snapshot() { SHA_A=$(sha "$SLOT_A") SHA_B=$(sha "$SLOT_B") SHA_ENV=$(sha "$WORK/uboot.env"); }
unchanged() {
    local ok=0
    [ "$(sha "$SLOT_A")" = "$SHA_A" ] || { log "slot A changed"; ok=1; }
    [ "$(sha "$SLOT_B")" = "$SHA_B" ] || { log "slot B was written"; ok=1; }
    [ "$(sha "$WORK/uboot.env")" = "$SHA_ENV" ] || { log "the U-Boot environment changed: $(fw_printenv -c "$WORK/fw_env.config" 2>/dev/null | xargs)"; ok=1; }
    return "$ok"
}
said() { grep -q -- "$1" "$WORK/install.out" "$WORK/service.out" || { log "neither rauc install nor the service said '$1'"; return 1; }; }
# refused BUNDLE TEXT: install fails saying TEXT, and nothing was written.
refused() {
    cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
    snapshot
    if install "$1"; then log "installed, but should have been refused"; return 1; fi
    said "$2" && unchanged
}
# slot_file DEVICE PATH: a file in the ext4 slot (debugfs: nothing mounted).
slot_file() { debugfs -R "cat $2" "$1" 2>/dev/null; }
# slot_holds DEVICE VERSION: the slot holds that rootfs image's files (not
# byte for byte: the bundle's hook carries this box's files into it).
slot_holds() {
    [ "$(slot_file "$1" /etc/cast-gateway/release)" = "VERSION=$2" ] \
        && [ "$(slot_file "$1" "/usr/lib/payload-$2.bin" | sha256sum | cut -d' ' -f1)" = "$(sha "$WORK/images/tree-$2/usr/lib/payload-$2.bin")" ] \
        || { log "$1 does not hold the $2 image"; return 1; }
}
# carried DEVICE: the bundle's hook copied the box's identity into it.
carried() {
    local file
    for file in etc/machine-id etc/hostname root/.ssh/authorized_keys; do
        [ "$(slot_file "$1" "/$file")" = "$(cat "$CARRY/$file")" ] || { log "/$file was not carried into $1"; return 1; }
    done
    debugfs -R "stat /etc/localtime" "$1" 2>/dev/null | grep -q 'Fast link dest: "/usr/share/zoneinfo/Europe/Berlin"' \
        || { log "the /etc/localtime symlink was not carried into $1"; return 1; }
    [ "$(debugfs -R "stat /root/.ssh" "$1" 2>/dev/null | sed -n 's/.*Mode: *\([0-7]*\).*/\1/p')" = 0700 ] \
        || { log "/root/.ssh in $1 is not mode 700"; return 1; }
}
# switched_to_b: BOOT_ORDER is "B A", B has system.conf's boot-attempts-primary
# tries (RAUC's default: 3), A keeps its count.
switched_to_b() {
    local order left_b left_a primary
    primary=$(sed -n 's/^boot-attempts-primary=//p' "$WORK/system.conf")
    primary=${primary:-3}
    order=$(envvar BOOT_ORDER) left_b=$(envvar BOOT_B_LEFT) left_a=$(envvar BOOT_A_LEFT)
    log "environment: BOOT_ORDER='$order' BOOT_A_LEFT=$left_a BOOT_B_LEFT=$left_b"
    [ "$order" = "B A" ] || { log "BOOT_ORDER is not 'B A'"; return 1; }
    [ "$left_b" = "$primary" ] || { log "BOOT_B_LEFT is not reset to boot-attempts-primary ($primary)"; return 1; }
    [ "$left_a" = 3 ] || { log "BOOT_A_LEFT changed"; return 1; }
}

start_service "$WORK/system.conf"

# --- cases --------------------------------------------------------------------
case_good() {
    cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
    snapshot
    expect "rauc install succeeds" install "$WORK/bundles/good.raucb" || return 1
    expect "slot B holds the 2.0 image" slot_holds "$SLOT_B" 2.0 || return 1
    expect "the box's identity was carried into slot B" carried "$SLOT_B" || return 1
    expect "RAUC grew the 8 MiB image to the 12 MiB slot (resize=true)" \
        [ "$(dumpe2fs -h "$SLOT_B" 2>/dev/null | awk -F: '/^Block count/ {c = $2} /^Block size/ {s = $2} END {print int(c * s / 1048576)}')" = 12 ] || return 1
    expect "slot A unchanged" [ "$(sha "$SLOT_A")" = "$SHA_A" ] || return 1
    switched_to_b
}
case_tampered() { refused "$WORK/bundles/tampered.raucb" "signature verification failed"; }
case_other_key() { refused "$WORK/bundles/other-key.raucb" "signature verification failed"; }
case_downgrade() {
    refused "$WORK/bundles/downgrade.raucb" "refusing downgrade from 1.0 to 0.9" || return 1
    # A file naming another version does not allow it either.
    mkdir -p /run/rauc-cast-gateway
    echo 0.8 > /run/rauc-cast-gateway/allow-downgrade
    refused "$WORK/bundles/downgrade.raucb" "refusing downgrade" || return 1
    echo 0.9 > /run/rauc-cast-gateway/allow-downgrade
    cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
    snapshot
    expect "the allowed downgrade installs" install "$WORK/bundles/downgrade.raucb" || return 1
    expect "slot B holds the 0.9 image" slot_holds "$SLOT_B" 0.9 || return 1
    expect "slot A unchanged" [ "$(sha "$SLOT_A")" = "$SHA_A" ] || return 1
    expect "the allow file is used once" [ ! -e /run/rauc-cast-gateway/allow-downgrade ] || return 1
    switched_to_b
}
case_too_big() { refused "$WORK/bundles/big.raucb" "does not fit into"; }
# Without the handler's check RAUC writes until the slot is full: it must
# fail, keep A, and not switch to B (it marks B unbootable before writing).
case_too_big_rauc_only() {
    render_conf "$WORK/no-handler.conf" -e "s|^bundle-formats=verity|bundle-formats=plain|" -e "/^pre-install=/d"
    start_service "$WORK/no-handler.conf"
    cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
    snapshot
    local rc=0
    install "$WORK/bundles/big.raucb" || rc=$?
    start_service "$WORK/system.conf"
    expect "rauc install fails" [ "$rc" != 0 ] || return 1
    expect "it says the slot is full" said "No space left on device" || return 1
    expect "slot A unchanged" [ "$(sha "$SLOT_A")" = "$SHA_A" ] || return 1
    local order
    order=$(envvar BOOT_ORDER)
    log "environment: BOOT_ORDER='$order' BOOT_B_LEFT=$(envvar BOOT_B_LEFT)"
    expect "BOOT_ORDER does not start with B" [ "${order%% *}" = A ]
}
# The new slot fills up while the hook carries the box's files: the install
# fails before B is marked bootable, and A stays first.
case_post_install_fails() {
    local full=$WORK/carry-full order rc=0
    mkdir -p "$full/etc"
    head -c $((14 * 1024 * 1024)) /dev/zero > "$full/etc/hosts"   # the slot is 12 MiB
    CAST_GATEWAY_CARRY_ROOT=$full start_service "$WORK/system.conf"
    cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
    snapshot
    install "$WORK/bundles/good.raucb" || rc=$?
    start_service "$WORK/system.conf"
    expect "rauc install fails" [ "$rc" != 0 ] || return 1
    expect "the hook says what it could not copy" said "cannot copy /etc/hosts into the new slot" || return 1
    expect "slot A unchanged" [ "$(sha "$SLOT_A")" = "$SHA_A" ] || return 1
    order=$(envvar BOOT_ORDER)
    log "environment: BOOT_ORDER='$order'"
    expect "BOOT_ORDER still starts with A" [ "${order%% *}" = A ]
}
case_wrong_compatible() { refused "$WORK/bundles/wrong-compatible.raucb" "Compatible mismatch"; }
case_verity() {
    local keyring=$WORK/keys/ca.cert.pem
    expect "rauc info verifies the verity bundle" rauc --keyring "$keyring" info "$WORK/bundles/verity.raucb" || return 1
    expect "the payload check passes" rauc --keyring "$keyring" extract "$WORK/bundles/verity.raucb" "$WORK/extract-ok" || return 1
    rm -rf "$WORK/extract-ok"
    if rauc --keyring "$keyring" extract "$WORK/bundles/verity-tampered.raucb" "$WORK/extract-bad" > "$WORK/extract.out" 2>&1; then
        log "a changed payload byte in a verity bundle went unnoticed"; return 1
    fi
    expect "the changed byte is reported" grep -q "payload is corrupted" "$WORK/extract.out" || return 1
    # The board's configuration (bundle-formats=verity) takes no plain bundle.
    rauc --conf "$WORK/board.conf" info "$WORK/bundles/good.raucb" > "$WORK/info.out" 2>&1 && { log "the board config accepted a plain bundle"; return 1; }
    expect "the board config names the format" grep -q "Bundle format 'plain' not allowed" "$WORK/info.out"
}
# Installing verity here: without device-mapper it must fail before writing.
case_verity_install() {
    if [ -e /dev/mapper/control ]; then
        log "this host has device-mapper: the verity bundle must install"
        start_service "$WORK/board.conf"
        cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
        local rc=0
        install "$WORK/bundles/verity.raucb" || rc=$?
        start_service "$WORK/system.conf"
        [ "$rc" = 0 ] && slot_holds "$SLOT_B" 2.0
    else
        render_conf "$WORK/verity.conf"
        start_service "$WORK/verity.conf"
        local rc=0
        refused "$WORK/bundles/verity.raucb" "Failed mounting bundle" || rc=1
        start_service "$WORK/system.conf"
        return "$rc"
    fi
}

# deploy/bundle's own refusals: a version label the image contradicts, a key
# that is not the certificate's, a board without a profile; no output left.
case_bundle_refuses() {
    local out=$WORK/bundles/refused.raucb
    "$REPO/deploy/bundle" --rootfs "$WORK/images/2.0.ext4" --version 2.1 --key "$WORK/keys/signing.key.pem" \
        --cert "$WORK/keys/signing.cert.pem" --compatible cast-gateway-test --output "$out" > "$WORK/b.out" 2>&1 \
        && { log "built 2.1 from an image that says 2.0"; return 1; }
    expect "it names the image's version" grep -q "release says VERSION=2.0" "$WORK/b.out" || return 1
    "$REPO/deploy/bundle" --rootfs "$WORK/images/2.0.ext4" --version 2.0 --key "$WORK/keys/other.key.pem" \
        --cert "$WORK/keys/signing.cert.pem" --compatible cast-gateway-test --output "$out" > "$WORK/b.out" 2>&1 \
        && { log "signed with a key that is not the certificate's"; return 1; }
    expect "it says the key does not match" grep -q "does not belong to the certificate" "$WORK/b.out" || return 1
    "$REPO/deploy/bundle" --rootfs "$WORK/images/2.0.ext4" --version 2.0 --key "$WORK/keys/signing.key.pem" \
        --cert "$WORK/keys/signing.cert.pem" --board no-such-board --output "$out" > "$WORK/b.out" 2>&1 \
        && { log "built for a board without a profile"; return 1; }
    expect "it names the missing profile" grep -q "no board profile boards/no-such-board.conf" "$WORK/b.out" || return 1
    expect "no bundle left behind" [ ! -e "$out" ]
}

# deploy/bundle with a full temp directory: a 256 KiB tmpfs (the image holds
# 300 KB of random data; its zeros are copied sparse).
case_bundle_tmp_full() {
    local out=$WORK/bundles/tmp-full.raucb
    mkdir -p "$WORK/small-tmp"
    mount -t tmpfs -o size=256k tmpfs "$WORK/small-tmp" && MNTS+=("$WORK/small-tmp")
    TMPDIR=$WORK/small-tmp "$REPO/deploy/bundle" --rootfs "$WORK/images/2.0.ext4" --version 2.0 \
        --key "$WORK/keys/signing.key.pem" --cert "$WORK/keys/signing.cert.pem" --compatible cast-gateway-test \
        --format plain --output "$out" > "$WORK/b.out" 2>&1 && { log "built a bundle in a full temp directory"; return 1; }
    sed 's/^/  | /' "$WORK/b.out" >> "$WORK/case.log"
    expect "it says the disk may be full" grep -q "disk full" "$WORK/b.out" || return 1
    expect "no bundle written" [ ! -e "$out" ] || return 1
    expect "its temp directory removed" [ -z "$(ls -A "$WORK/small-tmp")" ]
}

# --- committing a slot (deploy/rauc/commit-slot) -----------------------------
# systemctl is the seam: a stand-in answers `show` with the lines of
# $WORK/systemctl.answers in turn (the gateway's state before and after the
# health time) and records `reboot` and `reload`. RAUC and the U-Boot
# environment are real.
mkdir -p "$WORK/bin"
cat > "$WORK/bin/systemctl" <<'FAKE'
#!/bin/sh
case $1 in
    show) n=$(cat "$FAKE_DIR/systemctl.count" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$FAKE_DIR/systemctl.count"
          sed -n "${n}p" "$FAKE_DIR/systemctl.answers" | tr ' ' '\n' ;;
    reboot) echo reboot >> "$FAKE_DIR/systemctl.calls" ;;
    reload) echo "$*" >> "$FAKE_DIR/systemctl.reloads" ;;
    *) echo "systemctl stand-in: unexpected $*" >&2; exit 1 ;;
esac
FAKE
chmod +x "$WORK/bin/systemctl"
HEALTHY="ActiveState=active MainPID=812 NRestarts=0"
# commit_slot BOOTED VERSION STATE_BEFORE STATE_AFTER: commit-slot as slot
# BOOTED running VERSION; its output in the case log, its exit status kept.
commit_slot() {
    start_service "$WORK/system.conf" "$1"
    echo "VERSION=$2" > /etc/cast-gateway/release
    printf '%s\n%s\n' "$3" "$4" > "$WORK/systemctl.answers"
    rm -f "$WORK/systemctl.count" "$WORK/systemctl.calls" "$WORK/systemctl.reloads"
    local rc=0
    FAKE_DIR=$WORK PATH="$WORK/bin:$PATH" CAST_GATEWAY_UPDATE_STATE=$WORK/update \
        "$REPO/deploy/rauc/commit-slot" --health-time 0 >> "$WORK/case.log" 2>&1 || rc=$?
    echo "VERSION=1.0" > /etc/cast-gateway/release
    start_service "$WORK/system.conf"
    log "commit-slot as $1 ($2) exit $rc; environment: $(fw_printenv -c "$WORK/fw_env.config" 2>/dev/null | grep BOOT_ | xargs)"
    return "$rc"
}
report_says() {  # report_says KEY=VALUE...: and the gateway was told to read it
    local line
    grep -q "^reload --no-block cast-gateway.service" "$WORK/systemctl.reloads" 2>/dev/null \
        || { log "the gateway was not reloaded to read the report"; return 1; }
    for line in "$@"; do
        grep -qx "$line" "$WORK/update/report" 2>/dev/null \
            || { log "the report lacks '$line': $(xargs < "$WORK/update/report" 2>/dev/null)"; return 1; }
    done
}
rebooted() { [ -s "$WORK/systemctl.calls" ]; }
not_rebooted() { ! rebooted; }
# An install of 2.0 into B from a committed A (1.0).
installed_b() {
    cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
    rm -rf "$WORK/update"
    commit_slot A 1.0 "$HEALTHY" "$HEALTHY" && install "$WORK/bundles/good.raucb" && switched_to_b
}
case_commit_first_boot() {
    cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
    rm -rf "$WORK/update"
    fw_setenv -c "$WORK/fw_env.config" BOOT_A_LEFT 2
    commit_slot A 1.0 "ActiveState=failed MainPID=0 NRestarts=4" "" || return 1
    expect "the image's first slot is committed at once, healthy or not" [ "$(envvar BOOT_A_LEFT)" = 3 ] || return 1
    expect "it remembers A at 1.0" grep -qx "A 1.0" "$WORK/update/committed" || return 1
    expect "no restart" not_rebooted || return 1
    expect "no report (nothing was updated)" [ ! -e "$WORK/update/report" ]
}
case_commit_after_install_not_rebooted() {
    installed_b || return 1
    cp "$WORK/uboot.env" "$WORK/uboot.env.installed"
    commit_slot A 1.0 "$HEALTHY" "$HEALTHY" || return 1
    expect "nothing changes before the restart into B" cmp -s "$WORK/uboot.env" "$WORK/uboot.env.installed"
}
case_commit_healthy() {
    installed_b || return 1
    fw_setenv -c "$WORK/fw_env.config" BOOT_B_LEFT 2   # U-Boot took this boot's attempt
    commit_slot B 2.0 "$HEALTHY" "$HEALTHY" || return 1
    expect "B is marked good (its attempts back to 3)" [ "$(envvar BOOT_B_LEFT)" = 3 ] || return 1
    expect "B stays first" [ "$(envvar BOOT_ORDER)" = "B A" ] || return 1
    expect "no restart" not_rebooted || return 1
    report_says state=updated version=2.0 running=2.0 previous=1.0 || return 1
    expect "it remembers B at 2.0" grep -qx "B 2.0" "$WORK/update/committed"
}
case_commit_unhealthy() {
    installed_b || return 1
    fw_setenv -c "$WORK/fw_env.config" BOOT_B_LEFT 2
    # The gateway was restarted during the health time (a crash or the watchdog).
    commit_slot B 2.0 "$HEALTHY" "ActiveState=active MainPID=907 NRestarts=1" || return 1
    expect "B is not marked good" [ "$(envvar BOOT_B_LEFT)" = 2 ] || return 1
    expect "the box restarts to use B's next attempt" rebooted || return 1
    report_says state=unhealthy version=2.0 || return 1
    expect "A stays the committed slot" grep -qx "A 1.0" "$WORK/update/committed"
}
case_commit_fell_back() {
    installed_b || return 1
    # B used its attempts without a commit; U-Boot booted A.
    fw_setenv -c "$WORK/fw_env.config" BOOT_B_LEFT 0
    fw_setenv -c "$WORK/fw_env.config" BOOT_A_LEFT 2
    commit_slot A 1.0 "$HEALTHY" "$HEALTHY" || return 1
    report_says state=failed version=2.0 running=1.0 || return 1
    expect "A is first again (U-Boot stops trying B)" [ "$(envvar BOOT_ORDER)" = "A B" ] || return 1
    expect "A is marked good" [ "$(envvar BOOT_A_LEFT)" = 3 ] || return 1
    expect "no restart" not_rebooted
}

# --- updates from the fleet (deploy/rauc/install-request) ---------------------
# The gateway's request file, as the gateway writes it; a real HTTP server on
# loopback (python3 http.server on 127.0.0.1, a free port) serves the
# bundles; install-request downloads, checks and installs through the real
# RAUC service, --no-reboot (the qemu test reboots for real).
mkdir -p "$WORK/progress" "$WORK/download"
mkfifo "$WORK/http.fifo"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$WORK/bundles" > "$WORK/http.fifo" 2> "$WORK/http.log" &
PIDS+=("$!")
exec 7<> "$WORK/http.fifo"   # held open: the server's later output never meets a closed pipe
# It prints its address once it listens: reading it is the wait.
read -r -t 30 line <&7 || { cat "$WORK/http.log" >&2; echo "bundle-test: the HTTP server did not start" >&2; exit 1; }
[[ $line =~ port\ ([0-9]+) ]] || { echo "bundle-test: unexpected HTTP server output: $line" >&2; exit 1; }
HTTP=http://127.0.0.1:${BASH_REMATCH[1]}
request() {  # request URL [SHA256 [VERSION]]: the gateway's request file
    { echo "url=$1"; [ -z "${2:-}" ] || echo "sha256=$2"; [ -z "${3:-}" ] || echo "version=$3"; } > "$WORK/request"
}
fleet_install() {  # install-request with the test's paths; what it said in the case log
    local rc=0
    # In the /etc overlay, for install-request's `rauc info` (only now: other cases use --conf).
    mkdir -p /etc/rauc
    cp "$WORK/system.conf" /etc/rauc/system.conf
    "$REPO/deploy/rauc/install-request" --request "$WORK/request" --progress "$WORK/progress/progress" \
        --download "$WORK/download" --no-reboot > "$WORK/helper.out" 2>&1 || rc=$?
    rm -f /etc/rauc/system.conf
    log "install-request exit $rc:"
    sed 's/^/  | /' "$WORK/helper.out" >> "$WORK/case.log"
    log "progress file: $(xargs < "$WORK/progress/progress" 2>/dev/null)"
    return "$rc"
}
progress_says() {  # progress_says KEY=VALUE...
    local line
    for line in "$@"; do
        grep -qx -- "$line" "$WORK/progress/progress" || { log "the progress lacks '$line'"; return 1; }
    done
}
progress_message() { grep -q -- "$1" <(sed -n 's/^message=//p' "$WORK/progress/progress") || { log "the progress message does not say '$1'"; return 1; }; }
taken_and_cleaned() {
    expect "the request was taken (runs once)" [ ! -e "$WORK/request" ] || return 1
    expect "no download left behind" [ -z "$(ls -A "$WORK/download")" ]
}
case_fleet_wrong_sha() {
    cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
    snapshot
    request "$HTTP/good.raucb" "$(printf '%064d' 0)" 2.0
    if fleet_install; then log "installed a bundle whose SHA-256 is not the one asked for"; return 1; fi
    expect "the bundle was fetched over HTTP" grep -q '"GET /good.raucb' "$WORK/http.log" || return 1
    progress_says state=failed version=2.0 || return 1
    progress_message "SHA-256 is $(sha "$WORK/bundles/good.raucb"), not $(printf '%064d' 0)" || return 1
    expect "slots and environment unchanged" unchanged || return 1
    taken_and_cleaned
}
case_fleet_not_found() {
    cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
    snapshot
    request "$HTTP/no-such.raucb"
    if fleet_install; then log "a missing bundle counted as installed"; return 1; fi
    progress_says state=failed || return 1
    progress_message "404" || return 1
    expect "slots and environment unchanged" unchanged || return 1
    taken_and_cleaned
}
case_fleet_bad_request() {
    cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
    snapshot
    request "file://$WORK/bundles/good.raucb"
    if fleet_install; then log "a file:// request was acted on"; return 1; fi
    progress_says state=failed || return 1
    progress_message "the request has no http(s) URL" || return 1
    expect "slots and environment unchanged" unchanged || return 1
    taken_and_cleaned
}
case_fleet_good() {
    cp "$WORK/uboot.env.booted-a" "$WORK/uboot.env"
    snapshot
    # No version in the request: install-request reads it from the bundle.
    request "$HTTP/good.raucb" "$(sha "$WORK/bundles/good.raucb")"
    expect "install-request succeeds" fleet_install || return 1
    progress_says state=installed percent=100 version=2.0 || return 1
    expect "it reported downloading, verifying and installing on the way" \
        grep -q "progress: downloading" "$WORK/helper.out" || return 1
    expect "... verifying" grep -q "progress: verifying" "$WORK/helper.out" || return 1
    expect "... installing with RAUC's percentages" grep -Eq "progress: installing [1-9][0-9]?%" "$WORK/helper.out" || return 1
    expect "slot B holds the 2.0 image" slot_holds "$SLOT_B" 2.0 || return 1
    expect "slot A unchanged" [ "$(sha "$SLOT_A")" = "$SHA_A" ] || return 1
    switched_to_b || return 1
    taken_and_cleaned
}

run_case "deploy/bundle with its temp space full fails saying so, writes no bundle" case_bundle_tmp_full
run_case "deploy/bundle refuses a wrong version label, a foreign key, an unknown board" case_bundle_refuses
run_case "good bundle installs into slot B (image, BOOT_ORDER=B first, BOOT_B_LEFT reset, A unchanged)" case_good
run_case "tampered bundle (one payload byte) refused, nothing written" case_tampered
run_case "bundle signed by a key not in the keyring refused, nothing written" case_other_key
run_case "downgrade 1.0 -> 0.9 refused, nothing written; installs with the allow-downgrade file" case_downgrade
run_case "image larger than the slot refused by pre-install, nothing written" case_too_big
run_case "image larger than the slot without the handler: RAUC fails, A kept, not switched to B" case_too_big_rauc_only
run_case "the bundle's hook cannot carry the box's files (new slot full): install fails, A stays first" case_post_install_fails
run_case "wrong compatible refused, nothing written" case_wrong_compatible
run_case "verity bundle verified in user space, changed byte detected; board config refuses plain" case_verity
if [ -e /dev/mapper/control ]; then
    run_case "verity bundle installs (host has device-mapper)" case_verity_install
else
    run_case "verity bundle on a host without device-mapper fails before writing" case_verity_install
fi
run_case "commit-slot: the image's first boot commits slot A at once" case_commit_first_boot
run_case "commit-slot: installed but not restarted yet, nothing changes" case_commit_after_install_not_rebooted
run_case "commit-slot: a healthy new slot B is committed and reported as updated" case_commit_healthy
run_case "commit-slot: an unhealthy new slot is not committed, the box restarts" case_commit_unhealthy
run_case "commit-slot: after U-Boot fell back, the failed update is reported and A is first again" case_commit_fell_back
run_case "fleet update over HTTP: a wrong SHA-256 is refused before anything is written" case_fleet_wrong_sha
run_case "fleet update over HTTP: a missing bundle (404) fails, nothing written" case_fleet_not_found
run_case "fleet update: a request that is not http(s) is refused, nothing fetched" case_fleet_bad_request
run_case "fleet update over HTTP: downloaded, checked, installed into B with progress" case_fleet_good
stop_service
echo "bundle: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
