#!/usr/bin/env bash
# End-to-end proof of the A/B updates: the qemu-arm64 image under
# qemu-system-aarch64 -M virt (TCG) and the real U-Boot (u-boot-qemu's
# qemu_arm64, running the image's boot.scr, the Pi's script too), with
# RAUC, the bundle's hook and commit-slot as the box has them:
#   a. the image boots slot A and its gateway answers `connected` on the
#      serial console (to a receiver simulator inside the VM, as in
#      image-boot.sh); the kiosk writes its state on /data;
#   f. refused before anything is written, no reboot: the good bundle with
#      one byte changed half way in (in the VM, then changed back), and the
#      same bundle re-signed by another key (`rauc resign`, a key made with
#      openssl in the work directory): rauc install or RAUC's log of it
#      says why (the changed byte: pre-install, which reads the whole bundle
#      through dm-verity first), and slot B (its sectors-written counter),
#      the boot environment and RAUC's status file are as before;
#   g. a power cut in the middle of an install: `rauc install` of the good
#      bundle, qemu killed (SIGKILL) once slot B has 4 MiB more written; the
#      next qemu boots A, committed and `connected`, slot B not bootable
#      (BOOT_B_LEFT 0 or B out of BOOT_ORDER, RAUC: bad); the next normal
#      install (c) writes B again;
#   c. a signed bundle whose gateway exits at start (`deploy/bundle`, a
#      higher version) is installed with `rauc install`; the box reboots
#      into B, which never stays healthy: commit-slot restarts it, U-Boot
#      uses up B's 3 attempts and boots A by itself, and the gateway's
#      `status` says `update: the update to X failed; back on Y`;
#   b. a good bundle of a higher version is installed with
#      `deploy/install --bundle` over the forwarded ssh port (copy, rauc
#      install, reboot, wait); the box reboots into B, commit-slot commits B
#      after the health time (30 s here, by a drop-in), and the gateway
#      reports the new version (`update: updated to X (was Y)`,
#      /etc/cast-gateway/release, dpkg);
#   d. after each, the config on the boot partition, a file on /data and
#      the kiosk's state are still there;
#   e. a `factory-reset` file on the boot partition: the next boot has the
#      image's config again and no gateway state, and keeps firstboot.conf's
#      settings, root's ssh key and the release.
# In this order: a, f, g, c, b, e (f needs no reboot, g one).
# The update images are deploy/image runs with repacked packages (the same
# binary under a higher version; the broken one's binary replaced by a
# script that exits 1), their root slot cut out as the bundle's rootfs.
# The VM reboots by itself (no -no-reboot); the test follows U-Boot's
# `booting slot` lines on the UART.
#
#   Tests/deploy/update-boot.sh [--keep] [--package DEB]
#
# Prints each stage's time. The last line is `update-boot: N passed, M
# failed`. Needs root, openssh-client, rauc and squashfs-tools (for
# deploy/bundle) and what deploy/image needs; qemu and U-Boot come from the
# boot tools' chroot. Not part of Tests/deploy/run.sh: about 21 min with
# the caches filled (image-boot.sh's first run fills them).
set -euo pipefail
# shellcheck disable=SC2034 # PROG is used by deploy/lib.sh
PROG=update-boot
# shellcheck source=deploy/lib.sh
source "$(dirname "$0")/../../deploy/lib.sh"
# shellcheck source=Tests/deploy/vm.sh
source "$(dirname "$0")/vm.sh"
KEEP=0 DEB=""
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        --keep) KEEP=1; shift ;;
        --package) DEB=${2:?--package needs a file}; shift 2 ;;
        *) echo "update-boot: unknown argument '$1' (try --help)" >&2; exit 64 ;;
    esac
done
need_root
need ssh openssh-client
need scp openssh-client
need ssh-keygen openssh-client
need python3 python3
need openssl openssl
need rauc rauc
need mksquashfs squashfs-tools
need sfdisk fdisk
WORK=$(mktemp -d /tmp/cast-gateway-update-boot-XXXXXX)
INSTALL_PID=""
finish() {
    if [ -n "$INSTALL_PID" ]; then kill "$INSTALL_PID" 2>/dev/null || true; wait "$INSTALL_PID" 2>/dev/null || true; fi
    vm_finish
    if [ "$KEEP" = 1 ]; then echo "update-boot: kept $WORK"; else rm -rf "$WORK"; fi
}
trap finish EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
give_up() {
    bad "$*"
    tail -n 30 "$WORK/serial.log" "$WORK/console.log" 2>/dev/null | tr -d '\r' >&2 || true
    echo "update-boot: $passed passed, $failed failed"
    exit 1
}
TIMES=()
stage_started=$(date +%s)
stage_done() {  # stage_done NAME: prints and keeps the stage's time
    local seconds=$(( $(date +%s) - stage_started ))
    TIMES+=("$1: $seconds s")
    echo "update-boot: time: $1: $seconds s"
    stage_started=$(date +%s)
}
# check NAME REMOTE-SHELL-COMMAND
check() {
    if output=$(ssh_vm "$2" 2>&1); then ok "$1"; else bad "$1: $output"; fi
}
HEALTH_TIME=30
# connected WHAT TIMEOUT: the console of the boot after byte $since of the
# UART's log answers `status` with the connected state (seconds counted
# from VM_SINCE_TIME, default qemu's start).
connected() {
    local answer seconds text
    if answer=$(vm_console connected "$2" "$since"); then
        read -r seconds _ text <<<"$answer"
        ok "$1: status on the serial console answers with the connected state after $seconds s: $text"
    else
        give_up "$1: $answer"
    fi
}
# says TIMEOUT PATTERN EXPECTED: the console of that boot prints a line
# matching PATTERN, and it is EXPECTED.
says() {
    local answer text
    VM_SINCE_TIME=$(date +%s.%N)
    if answer=$(vm_console line "$1" "$since" "$2"); then
        read -r _ _ text <<<"$answer"
        if [ "$text" = "$3" ]; then ok "status says: $text"; else bad "status says '$text', not '$3'"; fi
    else
        bad "status, waiting for '$3': $answer"
    fi
}

# 1. The package, the simulator, the versions.
SIM=$REPO/dist/cast-receiver-sim_trixie_arm64
if [ -z "$DEB" ]; then
    DEB=$(ls -t "$REPO"/dist/cast-gateway_*_trixie_arm64.deb 2>/dev/null | head -1 || true)
fi
if [ -z "$DEB" ] || [ ! -x "$SIM" ]; then
    DEB=$(bash "$REPO/deploy/package" --arch arm64 --suite trixie --simulator | tail -1)
fi
V0=$(dpkg-deb -f "$DEB" Version)
V_BAD=$V0+bad1
V_GOOD=$V0+good2
echo "update-boot: image $V0, broken update $V_BAD, good update $V_GOOD"
# repack VERSION OUT: the package under another version.
repack() {
    rm -rf "$WORK/repack"
    dpkg-deb -R "$DEB" "$WORK/repack"
    sed -i "s/^Version: .*/Version: $1/" "$WORK/repack/DEBIAN/control"
    dpkg-deb --root-owner-group -b "$WORK/repack" "$2" > /dev/null
    rm -rf "$WORK/repack"
}
repack "$V_BAD" "$WORK/cast-gateway-bad.deb"
repack "$V_GOOD" "$WORK/cast-gateway-good.deb"

# 2. The test's files (Tests/deploy/vm.sh), a kiosk on two slides, the
#    health time, and the broken gateway.
vm_test_files "$SIM"
cat >> "$WORK/cast-gateway.conf" <<'CONF'
[kiosk]
playlist = /boot/firmware/room.m3u
image-duration = 5
start = boot
CONF
cat > "$WORK/customize-update" <<CUSTOMIZE
#!/bin/sh
# Test only: the kiosk's playlist on the boot partition; commit-slot's
# health time $HEALTH_TIME s instead of 120 (as the README says, a drop-in).
set -e
printf '#EXTM3U\n#EXTINF:5,Slide one\nhttp://127.0.0.1:9/one.jpg\n#EXTINF:5,Slide two\nhttp://127.0.0.1:9/two.jpg\n' > "\$2/room.m3u"
mkdir -p "\$1/etc/systemd/system/cast-gateway-commit.service.d"
printf '[Service]\nExecStart=\nExecStart=/usr/lib/cast-gateway/rauc/commit-slot --health-time $HEALTH_TIME\n' \
    > "\$1/etc/systemd/system/cast-gateway-commit.service.d/health-time.conf"
CUSTOMIZE
cat > "$WORK/customize-broken" <<'CUSTOMIZE'
#!/bin/sh
# Test only: a release whose gateway exits at start.
set -e
printf '#!/bin/sh\necho "cast-gateway: broken on purpose by Tests/deploy/update-boot.sh" >&2\nexit 1\n' > "$1/usr/bin/cast-gateway"
chmod 755 "$1/usr/bin/cast-gateway"
CUSTOMIZE
chmod +x "$WORK/customize-update" "$WORK/customize-broken"
# image DEB OUTPUT [deploy/image options...]
image() {
    local deb=$1 out=$2
    shift 2
    bash "$REPO/deploy/image" --board qemu-arm64 --package "$deb" --config "$WORK/cast-gateway.conf" \
        --firstboot "$WORK/firstboot.conf" --customize "$WORK/customize" --customize "$WORK/customize-update" \
        --keyring "$WORK/signing.cert.pem" --output "$out" "$@" > "$WORK/image.log" 2>&1 \
        || { tail -30 "$WORK/image.log" >&2; give_up "deploy/image $out"; }
}
# rootfs IMAGE OUT: slot A's partition (2) of an image, as a file.
rootfs() {
    local start size
    read -r start size < <(sfdisk -d "$1" | sed -n 's/.*2 : start= *\([0-9]*\), size= *\([0-9]*\),.*/\1 \2/p')
    [ -n "$start" ] || give_up "no partition 2 in $1"
    # (Partitions start and end on 4 MiB boundaries: whole MiB blocks.)
    dd if="$1" of="$2" bs=1M skip=$((start / 2048)) count=$((size / 2048)) conv=sparse status=none
}
# bundle ROOTFS VERSION OUT
bundle() {
    bash "$REPO/deploy/bundle" --rootfs "$1" --version "$2" --board qemu-arm64 --key "$WORK/signing.key.pem" \
        --cert "$WORK/signing.cert.pem" --output "$3" > "$WORK/bundle.log" 2>&1 \
        || { cat "$WORK/bundle.log" >&2; give_up "deploy/bundle $2"; }
}
image "$DEB" "$WORK/test.img"
ok "deploy/image --board qemu-arm64 ($V0)"
# A bigger "card" than the image: the first boot grows the data partition,
# which then has room for a bundle.
truncate -s +1G "$WORK/test.img"
stage_done "image A"
# The updates: small slots (--root-size 16M; RAUC grows the file system to
# the slot), so the bundles carry little empty space.
image "$WORK/cast-gateway-bad.deb" "$WORK/bad.img" --root-size 16M --customize "$WORK/customize-broken"
rootfs "$WORK/bad.img" "$WORK/bad.ext4"
rm -f "$WORK/bad.img"
bundle "$WORK/bad.ext4" "$V_BAD" "$WORK/bad.raucb"
rm -f "$WORK/bad.ext4"
image "$WORK/cast-gateway-good.deb" "$WORK/good.img" --root-size 16M
rootfs "$WORK/good.img" "$WORK/good.ext4"
rm -f "$WORK/good.img"
bundle "$WORK/good.ext4" "$V_GOOD" "$WORK/good.raucb"
rm -f "$WORK/good.ext4"
ok "deploy/bundle: $V_BAD ($(du -h "$WORK/bad.raucb" | cut -f1)) and $V_GOOD ($(du -h "$WORK/good.raucb" | cut -f1)), signed, verified"
# The good bundle signed by a key the image does not trust (rauc resign
# checks the old signature and its new one against the keyring it is given).
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/O=someone else/CN=another signing key" \
    -keyout "$WORK/other.key.pem" -out "$WORK/other.cert.pem" 2> "$WORK/openssl.log" \
    || { cat "$WORK/openssl.log" >&2; give_up "openssl could not make the other key"; }
cat "$WORK/signing.cert.pem" "$WORK/other.cert.pem" > "$WORK/both.cert.pem"
rauc resign --keyring "$WORK/both.cert.pem" --key "$WORK/other.key.pem" --cert "$WORK/other.cert.pem" \
    "$WORK/good.raucb" "$WORK/other-key.raucb" > "$WORK/resign.log" 2>&1 \
    || { cat "$WORK/resign.log" >&2; give_up "rauc resign with the other key"; }
stage_done "two update images and bundles"

# a. Slot A boots and connects.
since=0
vm_start "$WORK/test.img"
connected "slot A" 900
vm_wait_log '^cast-gateway: booting slot A \(partition 2; attempts left after this one: 2\)' 1 5 \
    && ok "U-Boot booted slot A" || bad "U-Boot did not say it booted slot A"
vm_wait_ssh 300 || give_up "no ssh to the VM"
check "commit-slot committed slot A (BOOT_ORDER 'A B', BOOT_A_LEFT 3)" \
    "for i in \$(seq 1 90); do [ \"\$(fw_printenv -n BOOT_A_LEFT 2>/dev/null) \$(fw_printenv -n BOOT_ORDER 2>/dev/null)\" = '3 A B' ] && exit 0; sleep 2; done; fw_printenv; exit 1"
# What must survive: the config on the boot partition, a file on /data,
# the kiosk's state (it writes it as it plays).
check "the kiosk saved its state on /data" \
    "for i in \$(seq 1 90); do [ -s /var/lib/cast-gateway/kiosk-state.json ] && exit 0; sleep 2; done; ls -la /var/lib/cast-gateway; exit 1"
ssh_vm "echo 'written in slot A' > /data/cast-gateway/update-boot-marker" || bad "cannot write the marker on /data"
config_sum=$(ssh_vm "sha256sum < /boot/firmware/cast-gateway.conf" 2>/dev/null || echo none)
kept() {  # kept SLOT: the config, the marker and the kiosk state are there
    check "slot $1: the config on the boot partition unchanged, the /data marker and the kiosk's state kept" \
        "[ \"\$(sha256sum < /boot/firmware/cast-gateway.conf)\" = '$config_sum' ] && [ \"\$(readlink /etc/cast-gateway/gateway.conf)\" = /boot/firmware/cast-gateway.conf ] \
         && grep -qx 'written in slot A' /var/lib/cast-gateway/update-boot-marker && [ \"\$(head -c 1 /var/lib/cast-gateway/kiosk-state.json)\" = '{' ]"
}
stage_done "a: slot A boots to connected"

# f. Refused before anything is written. What must not change: slot B (the
#    kernel's count of sectors written to vda3 since boot: nothing else
#    writes there), U-Boot's slot variables, RAUC's status file.
read -r -d '' SLOT_STATE <<'SH' || true
echo "slot B (vda3): $(awk '{print $7}' /sys/block/vda/vda3/stat) sectors written since boot"
fw_printenv BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT
echo "RAUC's status file: $(sha256sum < /data/rauc/central.raucs 2>/dev/null || echo none)"
SH
# refused WHAT REMOTE-BUNDLE PATTERN: rauc install fails, it or RAUC's log
# of this install says PATTERN (grep -E; RAUC 1.13's `rauc install` shows a
# handler's refusal only as "Pre-install handler error", the reason is in
# the service's log), and the slot state is as before.
refused() {
    local before after out started
    before=$(ssh_vm "$SLOT_STATE" 2>&1) || { bad "$1: cannot read the slot state: $before"; return 0; }
    started=$(ssh_vm "date +%s") || started=0
    if out=$(ssh_vm "rauc install $2" 2>&1); then
        bad "$1: rauc install took it: $(tail -3 <<<"$out" | tr '\n' ' ')"
        return 0
    fi
    after=$(ssh_vm "$SLOT_STATE" 2>&1) || true
    out+=$'\n'$(ssh_vm "journalctl -u rauc --since=@$started --no-pager -o cat" 2>&1 || true)
    if ! grep -qE "$3" <<<"$out"; then
        bad "$1: rauc install did not say /$3/: $(tail -3 <<<"$out" | tr '\n' ' ')"
    elif [ "$before" != "$after" ]; then
        bad "$1: written before the refusal: before: $(tr '\n' ' ' <<<"$before") after: $(tr '\n' ' ' <<<"$after")"
    else
        ok "$1 refused, nothing written: '$(grep -oE "\S*.{0,50}($3).{0,40}" <<<"$out" | head -1)'; unchanged: $(tr '\n' ' ' <<<"$after")"
    fi
}
scp_vm "$WORK/other-key.raucb" /data/other-key.raucb || give_up "cannot copy the other key's bundle to the VM"
refused "a bundle signed by another key" /data/other-key.raucb "signature verification failed"
ssh_vm "rm -f /data/other-key.raucb" || true
# The good bundle, kept on /data for g: one byte half way in (the squashfs)
# changed in place, then changed back.
scp_vm "$WORK/good.raucb" /data/update.raucb || give_up "cannot copy the good bundle to the VM"
read -r -d '' FLIP <<'SH' || true
flip() {  # flip FILE DELTA: the byte half way in, plus DELTA
    at=$(( $(stat -c %s "$1") / 2 ))
    b=$(od -An -tu1 -j "$at" -N1 "$1" | tr -d ' ')
    printf "\\$(printf '%03o' $(( (b + $2 + 256) % 256 )))" | dd of="$1" bs=1 seek="$at" conv=notrunc status=none
}
SH
ssh_vm "$FLIP
flip /data/update.raucb 1" || give_up "cannot change a byte of the bundle in the VM"
refused "the good bundle with one byte changed" /data/update.raucb "payload is corrupted"
ssh_vm "$FLIP
flip /data/update.raucb -1" || give_up "cannot change the byte back"
stage_done "f: a changed byte and another key refused"

# g. A power cut while RAUC writes slot B: the good bundle's install, and
#    qemu killed once B has 4 MiB (8192 sectors) more written than before.
sectors=$(ssh_vm "awk '{print \$7}' /sys/block/vda/vda3/stat") || give_up "cannot read vda3's counters"
ssh_vm "rauc install /data/update.raucb" > "$WORK/cut-install.log" 2>&1 &
INSTALL_PID=$!
if written=$(ssh_vm "for i in \$(seq 1 1200); do n=\$(awk '{print \$7}' /sys/block/vda/vda3/stat); \
        [ \$n -ge $((sectors + 8192)) ] && { echo \$(( (n - $sectors) / 2048 )) MiB written, RAUC\'s progress: \
            \$(busctl get-property de.pengutronix.rauc / de.pengutronix.rauc.Installer Progress 2>&1); exit 0; }; sleep 0.5; done; exit 1"); then
    vm_power_cut
    ok "qemu killed (SIGKILL) while RAUC wrote slot B ($written)"
else
    give_up "RAUC did not start writing slot B within 10 min: $(tail -5 "$WORK/cut-install.log" | tr '\n' ' ')"
fi
kill "$INSTALL_PID" 2>/dev/null || true
wait "$INSTALL_PID" 2>/dev/null || true
INSTALL_PID=""
if grep -q 'succeeded' "$WORK/cut-install.log"; then bad "the install had finished before qemu was killed: $(tail -2 "$WORK/cut-install.log" | tr '\n' ' ')"; fi
stage_done "g: rauc install until B is being written, qemu killed"
since=$(vm_log_size)
cut_at=$since
vm_start "$WORK/test.img"
VM_SINCE_TIME=$VM_STARTED
vm_wait_log '^cast-gateway: booting slot A \(partition 2; attempts left after this one: 2\)' 1 600 "$since" \
    || give_up "after the power cut: U-Boot did not boot slot A: $(tail -c +$((since + 1)) "$WORK/serial.log" | grep -a '^cast-gateway: booting' | tail -3 | tr -d '\r' | tr '\n' ';')"
since=$(vm_boot_offset "$since" A)
connected "after the power cut, slot A" 900
if tail -c +$((cut_at + 1)) "$WORK/serial.log" | grep -aq 'cast-gateway: booting slot B'; then
    bad "after the power cut U-Boot tried the half-written slot B"
else
    ok "after the power cut U-Boot booted slot A and never tried B"
fi
vm_wait_ssh 300 || give_up "no ssh to the VM after the power cut"
check "after the power cut: A runs $V0 with root on partition 2, committed again (BOOT_A_LEFT 3, A first)" \
    "grep -q 'rauc.slot=A' /proc/cmdline && [ \"\$(findmnt -nvo SOURCE /)\" = /dev/vda2 ] && grep -qx 'VERSION=$V0' /etc/cast-gateway/release && systemctl is-active cast-gateway \
     && for i in \$(seq 1 90); do o=\$(fw_printenv -n BOOT_ORDER); [ \"\$(fw_printenv -n BOOT_A_LEFT) \${o%% *}\" = '3 A' ] && journalctl -b -u cast-gateway-commit --no-pager | grep -q 'is committed' && exit 0; sleep 2; done; \
        fw_printenv; journalctl -b -u cast-gateway-commit --no-pager | tail -5; exit 1"
read -r -d '' B_NOT_BOOTABLE <<'SH' || true
order=$(fw_printenv -n BOOT_ORDER); left=$(fw_printenv -n BOOT_B_LEFT 2>/dev/null || echo unset)
case " $order " in *" B "*) [ "$left" = 0 ] || { echo "B in BOOT_ORDER '$order' with BOOT_B_LEFT $left"; exit 1; } ;; esac
eval "$(rauc status --detailed --output-format=shell)"
for n in $RAUC_SLOTS; do
    eval "name=\$RAUC_SLOT_BOOTNAME_$n state=\$RAUC_SLOT_BOOT_STATUS_$n"
    [ "$name" = B ] || continue
    [ "$state" = bad ] && exit 0
    echo "RAUC says slot B is '$state', not bad"; exit 1
done
echo "RAUC knows no slot B"; exit 1
SH
check "the half-written slot B is not bootable: BOOT_B_LEFT 0 (or B not in BOOT_ORDER), RAUC says bad" "$B_NOT_BOOTABLE"
kept A
ssh_vm "rm -f /data/update.raucb" || true
stage_done "g: the boot after the power cut and its checks"

# install BUNDLE: copy it to /data, rauc install, check B is next.
install_bundle() {
    scp_vm "$1" /data/update.raucb || give_up "cannot copy $1 to the VM"
    if out=$(ssh_vm "rauc install /data/update.raucb; rc=\$?; rm -f /data/update.raucb; exit \$rc" 2>&1); then
        ok "rauc install $(basename "$1")"
    else
        echo "$out" | tail -20 >&2
        ssh_vm "journalctl -u rauc --no-pager | tail -20" >&2 || true
        give_up "rauc install $(basename "$1")"
    fi
    check "after the install: B first in BOOT_ORDER with 3 attempts" \
        "[ \"\$(fw_printenv -n BOOT_ORDER) \$(fw_printenv -n BOOT_B_LEFT)\" = 'B A 3' ]"
}
# reboot: the box restarts itself; returns the UART log's size before.
reboot_vm() {
    since=$(vm_log_size)
    ssh_vm "systemctl reboot" 2>/dev/null || true
}

# c. A release whose gateway exits: B fails, U-Boot falls back to A.
install_bundle "$WORK/bad.raucb"
stage_done "c: install the broken bundle"
reboot_vm
for attempt in 1 2 3; do
    if vm_wait_log '^cast-gateway: booting slot B' "$attempt" 900 "$since"; then
        stage_done "c: boot $attempt of the broken slot B"
    else
        give_up "U-Boot did not boot slot B a ${attempt}. time"
    fi
done
ok "U-Boot tried B 3 times"
if vm_wait_log '^cast-gateway: booting slot A \(partition 2; attempts left after this one: 2\)' 1 900 "$since"; then
    ok "B's attempts used up: U-Boot booted A by itself"
    stage_done "c: the fall back to A"
else
    give_up "no fall back to A: $(grep -a '^cast-gateway: booting' "$WORK/serial.log" | tail -3 | tr -d '\r' | tr '\n' ';')"
fi
# From the fall back, the console answers only once the kernel of that boot runs.
since=$(vm_boot_offset "$since" A)
says 600 "update: the update to .* failed; back on .*" "update: the update to $V_BAD failed; back on $V0"
vm_wait_ssh 300 || give_up "no ssh to the VM after the fall back"
check "commit-slot on A: the report says failed, A first again with 3 attempts, A committed" \
    "grep -qx state=failed /var/lib/cast-gateway/update/report && grep -qx 'version=$V_BAD' /var/lib/cast-gateway/update/report \
     && grep -qx 'running=$V0' /var/lib/cast-gateway/update/report \
     && for i in \$(seq 1 60); do [ \"\$(fw_printenv -n BOOT_ORDER) \$(fw_printenv -n BOOT_A_LEFT)\" = 'A B 3' ] && exit 0; sleep 2; done; \
        fw_printenv; cat /var/lib/cast-gateway/update/report; exit 1"
check "slot A runs $V0 with root on partition 2" \
    "grep -q 'rauc.slot=A' /proc/cmdline && grep -qx 'VERSION=$V0' /etc/cast-gateway/release && systemctl is-active cast-gateway"
kept A
stage_done "c: status and checks on A"

# b. A good release, through deploy/install --bundle: it copies the bundle,
#    runs rauc install, reboots the box and waits until commit-slot has
#    committed the new slot after the health time.
since=$(vm_log_size)
if "$REPO/deploy/install" --bundle "$WORK/good.raucb" --port "$VM_SSH_PORT" --identity "$WORK/id_ed25519" \
    --no-host-key-check --timeout 1500 root@127.0.0.1 > "$WORK/install.log" 2>&1; then
    ok "deploy/install --bundle: $(grep -o 'healthy: .*' "$WORK/install.log")"
else
    cat "$WORK/install.log" >&2
    give_up "deploy/install --bundle"
fi
grep -v ': rauc: ' "$WORK/install.log" | sed 's/^/  /'
grep -q ': rauc: .*100%' "$WORK/install.log" && ok "deploy/install showed RAUC's progress" || bad "deploy/install showed no RAUC progress"
stage_done "b: deploy/install --bundle, reboot and commit"
vm_wait_log '^cast-gateway: booting slot B \(partition 3; attempts left after this one: 2\)' 1 10 "$since" \
    || give_up "U-Boot did not boot slot B"
ok "U-Boot booted the new slot B"
since=$(vm_boot_offset "$since" B)
VM_SINCE_TIME=$(date +%s.%N)
connected "slot B" 300
vm_wait_ssh 300 || give_up "no ssh to slot B"
check "commit-slot committed B after the health time: BOOT_ORDER 'B A', BOOT_B_LEFT 3, report updated" \
    "[ \"\$(fw_printenv -n BOOT_ORDER) \$(fw_printenv -n BOOT_B_LEFT)\" = 'B A 3' ] && grep -qx 'version=$V_GOOD' /var/lib/cast-gateway/update/report \
     && grep -qx 'previous=$V0' /var/lib/cast-gateway/update/report || { fw_printenv; cat /var/lib/cast-gateway/update/report; journalctl -u cast-gateway-commit --no-pager | tail; exit 1; }"
check "commit-slot waited the health time before it committed" \
    "journalctl -u cast-gateway-commit --no-pager | grep -q 'waiting $HEALTH_TIME s'"
check "slot B runs $V_GOOD with root on partition 3; RAUC: B booted and good" \
    "grep -q 'rauc.slot=B' /proc/cmdline && [ \"\$(findmnt -nvo SOURCE /)\" = /dev/vda3 ] && grep -qx 'VERSION=$V_GOOD' /etc/cast-gateway/release \
     && [ \"\$(dpkg-query -W -f='\${Version}' cast-gateway)\" = '$V_GOOD' ] && rauc status --output-format=shell | grep -qx \"RAUC_SYSTEM_BOOTED_BOOTNAME='\\?B'\\?\""
check "the hook carried the box into B: machine id, host name, root's ssh key" \
    "[ \"\$(hostname)\" = cg-image-test ] && [ -s /etc/machine-id ] && [ -s /root/.ssh/authorized_keys ]"
says 120 "update: updated to .*" "update: updated to $V_GOOD (was $V0)"
kept B
stage_done "b: status and checks on B"

# e. Factory reset: a factory-reset file on the boot partition. The box
#    boots B again with the image's config, its state gone, firstboot.conf's
#    settings and ssh access kept.
ssh_vm "echo 'written before the reset' > /data/cast-gateway/reset-marker && echo '# edited on the box' >> /boot/firmware/cast-gateway.conf \
    && echo 'test reset' > /boot/firmware/factory-reset" || bad "cannot prepare the factory reset"
reboot_vm
vm_wait_log '^cast-gateway: booting slot B \(partition 3; attempts left after this one: 2\)' 1 900 "$since" \
    || give_up "U-Boot did not boot slot B after the factory reset"
since=$(vm_boot_offset "$since" B)
VM_SINCE_TIME=$(date +%s.%N)
connected "after the factory reset (seconds from U-Boot choosing B)" 600
vm_wait_ssh 300 || give_up "no ssh after the factory reset (root's key should have been kept)"
check "the factory reset applied once: factory-reset.done, no factory-reset" \
    "[ -f /boot/firmware/factory-reset.done ] && [ ! -e /boot/firmware/factory-reset ] && grep -q 'test reset' /boot/firmware/factory-reset.done"
check "the config is the image's again (the edited one kept as .before-reset)" \
    "cmp -s /boot/firmware/cast-gateway.conf /usr/share/cast-gateway/image/cast-gateway.conf && [ \"\$(sha256sum < /boot/firmware/cast-gateway.conf)\" = '$config_sum' ] \
     && grep -q 'edited on the box' /boot/firmware/cast-gateway.conf.before-reset"
check "the gateway's state is gone: the markers and the update report" \
    "[ ! -e /var/lib/cast-gateway/reset-marker ] && [ ! -e /var/lib/cast-gateway/update-boot-marker ] && [ ! -e /var/lib/cast-gateway/update/report ]"
check "kept: firstboot.conf's host name and time zone, the ssh host key, the release $V_GOOD" \
    "[ \"\$(hostname)\" = cg-image-test ] && [ \"\$(readlink /etc/localtime)\" = /usr/share/zoneinfo/Europe/Berlin ] \
     && [ -s /data/ssh/ssh_host_ed25519_key ] && grep -qx 'VERSION=$V_GOOD' /etc/cast-gateway/release && systemctl is-active cast-gateway"
stage_done "e: factory reset and its boot"

vm_stop
echo "update-boot: stage times: $(printf '%s; ' "${TIMES[@]}")"
echo "update-boot: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
