#!/usr/bin/env bash
# End-to-end proof of the image: `deploy/image --board qemu-arm64` boots under
# qemu-system-aarch64 -M virt (TCG) through the real U-Boot (trixie's
# u-boot-qemu qemu_arm64, -bios, from ensure_boot_tools' chroot, whose qemu
# also runs the VM), which runs the image's boot.scr (deploy/uboot/boot.cmd,
# the Pi's script too) and boots root slot A; systemd starts cast-gateway, which reads
# cast-gateway.conf from the boot partition and connects to a
# cast-receiver-sim inside the VM (a test-only unit added with --customize);
# `status` typed on the emulated serial console (ttyAMA0, the profile's
# console) answers `connected`. Then, over ssh through a port forwarded on
# 127.0.0.1: firstboot.conf and Raspberry Pi Imager's cloud-init files were
# applied and their secrets removed, the web password hashed, the config
# link, the service's user and groups, the live security score, the reload on
# a config change, and deploy/install upgrading the package. The A/B side:
# the image's layout (Tests/deploy/image-layout.sh --image), U-Boot's choice
# of slot A and the attempt it saved in uboot.env, the root on partition 2,
# /var/lib/cast-gateway and the ssh host keys on the data partition (grown by
# the first boot), and RAUC naming A the booted slot.
#
#   Tests/deploy/image-boot.sh [--keep] [--package DEB]
#
# Prints the boot-to-connected time. The last line is
# `image-boot: N passed, M failed`. Needs root, openssh-client, and what
# deploy/image needs; qemu and U-Boot come from the boot tools' chroot. First
# run ~20 min (base system under emulation), then ~5 min.
set -euo pipefail
# shellcheck disable=SC2034 # PROG is used by deploy/lib.sh
PROG=image-boot
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
        *) echo "image-boot: unknown argument '$1' (try --help)" >&2; exit 64 ;;
    esac
done
need_root
need ssh openssh-client
need ssh-keygen openssh-client
need mcopy mtools
need python3 python3
need openssl openssl
WORK=$(mktemp -d /tmp/cast-gateway-image-boot-XXXXXX)
finish() {
    vm_finish
    if [ "$KEEP" = 1 ]; then echo "image-boot: kept $WORK"; else rm -rf "$WORK"; fi
}
trap finish EXIT
# shellcheck source=Tests/deploy/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh"

# 1. The package and a simulator for arm64.
SIM=$REPO/dist/cast-receiver-sim_trixie_arm64
if [ -z "$DEB" ] || [ ! -x "$SIM" ]; then
    DEB=$(bash "$REPO/deploy/package" --arch arm64 --suite trixie --simulator | tail -1)
fi

# 2. The image, with the test's config, firstboot.conf and simulator unit
#    (Tests/deploy/vm.sh).
vm_test_files "$SIM"
# Raspberry Pi Imager's cloud-init files (Tests/deploy/imager/cloudinit) on
# the card as well, and a web password in firstboot.conf: Imager's host
# name and Wi-Fi win over firstboot.conf's; both files' ssh keys are root's.
echo 'web-password = image-boot web 42' >> "$WORK/firstboot.conf"
cat > "$WORK/customize-imager" <<CUSTOMIZE
#!/bin/sh
cp '$REPO/Tests/deploy/imager/cloudinit/user-data' '$REPO/Tests/deploy/imager/cloudinit/network-config' \
    '$REPO/Tests/deploy/imager/cloudinit/meta-data' "\$2/"
CUSTOMIZE
chmod +x "$WORK/customize-imager"
start=$(date +%s)
if bash "$REPO/deploy/image" --board qemu-arm64 --package "$DEB" --config "$WORK/cast-gateway.conf" \
    --firstboot "$WORK/firstboot.conf" --customize "$WORK/customize" --customize "$WORK/customize-imager" --keyring "$WORK/signing.cert.pem" --output "$WORK/test.img" > "$WORK/image.log" 2>&1; then
    ok "deploy/image --board qemu-arm64 ($(( $(date +%s) - start )) s)"
else
    tail -30 "$WORK/image.log" >&2
    bad "deploy/image --board qemu-arm64"
    echo "image-boot: $passed passed, $failed failed"
    exit 1
fi
grep "image:" "$WORK/image.log" || true

# 3. The layout, without booting: partitions, boot.scr, RAUC, fstab, /data.
if bash "$REPO/Tests/deploy/image-layout.sh" --image "$WORK/test.img" --board qemu-arm64 > "$WORK/layout.log" 2>&1; then
    ok "the image's A/B layout ($(tail -1 "$WORK/layout.log"))"
else
    grep -v '^ok' "$WORK/layout.log" >&2
    bad "the image's A/B layout (Tests/deploy/image-layout.sh --image; failures above)"
fi
fat="$WORK/test.img@@4M"
mcopy -n -i "$fat" ::cast-gateway.conf "$WORK/cast-gateway.conf.card" \
    && ok "the boot partition holds cast-gateway.conf" || bad "no cast-gateway.conf on the boot partition"

# A bigger "card" than the image: the first boot grows the data partition.
truncate -s +1G "$WORK/test.img"

# 4. Boot through U-Boot (Tests/deploy/vm.sh vm_start).
vm_start "$WORK/test.img" -no-reboot

# 5. Type `status` on the serial console until it answers `connected`.
if answer=$(vm_console connected 900); then
    read -r seconds form text <<<"$answer"
    if [ "$form" = word ]; then
        ok "status on the serial console answers connected: $text"
    else
        ok "status on the serial console answers with the connected state: $text"
        echo "  (this build's status line does not contain the word 'connected')"
    fi
    echo "image-boot: boot-to-connected $seconds s (qemu start to the answer)"
else
    bad "status on the serial console: $answer"
    tail -n 40 "$WORK/serial.log" "$WORK/console.log" "$WORK/qemu.log" >&2 || true
fi
# U-Boot's words on the UART, before the kernel's.
if grep -aq '^cast-gateway: booting slot A (partition 2; attempts left after this one: 2)' "$WORK/serial.log"; then
    ok "U-Boot ran boot.scr and booted slot A (partition 2), 2 attempts left"
else
    bad "U-Boot did not say it booted slot A on ttyAMA0 ($WORK/serial.log, with --keep): $(grep -a 'cast-gateway:\|U-Boot' "$WORK/serial.log" | head -5 | tr '\r\n' '  ')"
fi

# 6. The rest over ssh.
vm_wait_ssh 240 || true
# check NAME REMOTE-SHELL-COMMAND
check() {
    if output=$(ssh_vm "$2" 2>&1); then ok "$1"; else bad "$1: $output"; fi
}
check "ssh with the key from firstboot.conf" "true"
check "systemd started cast-gateway" "systemctl is-active cast-gateway.service"
check "the config is the boot partition's" \
    "[ \"\$(readlink /etc/cast-gateway/gateway.conf)\" = /boot/firmware/cast-gateway.conf ] && grep -q 'image test' /boot/firmware/cast-gateway.conf"
check "the service runs as cast-gateway with the device groups" \
    "pid=\$(systemctl show -p MainPID --value cast-gateway); [ \"\$(stat -c %U /proc/\$pid)\" = cast-gateway ] \
     && for g in video input dialout gpio; do grep '^Groups:' /proc/\$pid/status | grep -qw \$(getent group \$g | cut -d: -f3) || exit 1; done"
check "the service holds its console /dev/ttyAMA0" \
    "pid=\$(systemctl show -p MainPID --value cast-gateway); ls -l /proc/\$pid/fd | grep -q ttyAMA0"
check "firstboot.conf, then Imager's user-data and network-config applied: Imager's host name and hidden Wi-Fi, the time zone, both files' ssh keys" \
    "[ \"\$(hostname)\" = room-101 ] && [ \"\$(readlink /etc/localtime)\" = /usr/share/zoneinfo/Europe/Berlin ] \
     && grep -q 'ssid=\"Hotel Guest\"' /etc/wpa_supplicant/wpa_supplicant-wlan0.conf && grep -q 'scan_ssid=1' /etc/wpa_supplicant/wpa_supplicant-wlan0.conf \
     && grep -q 'country=DE' /etc/wpa_supplicant/wpa_supplicant-wlan0.conf && grep -q 'installer@laptop' /root/.ssh/authorized_keys"
check "firstboot.conf renamed, Imager's files gone (a record kept), no secret left on the card or in the Wi-Fi config" \
    "[ ! -e /boot/firmware/firstboot.conf ] && [ -f /boot/firmware/firstboot.conf.applied ] \
     && [ ! -e /boot/firmware/user-data ] && [ ! -e /boot/firmware/network-config ] && [ -f /boot/firmware/imager-settings.applied ] \
     && ! grep -rq -e not-a-real-secret-42 -e 'image-boot web 42' -e Zmlyc3Rib290 /boot/firmware /etc/wpa_supplicant"
check "firstboot.conf's web-password: its hash on the data partition, mode 600, the gateway's user's" \
    "[ \"\$(stat -c '%U %a' /var/lib/cast-gateway/web-password)\" = 'cast-gateway 600' ] && grep -q '^pbkdf2-sha256' /data/cast-gateway/web-password \
     && grep -qx 'web-password = (applied, removed from this card)' /boot/firmware/firstboot.conf.applied"
check "the boot partition is readable by the service user only" \
    "[ \"\$(stat -L -c '%U %a' /boot/firmware/cast-gateway.conf)\" = 'cast-gateway 600' ]"
check "the kernel runs slot A: root=PARTUUID=0ca57ca5-02 rauc.slot=A from boot.scr, / on vda2" \
    "grep -q 'root=PARTUUID=0ca57ca5-02 rauc.slot=A' /proc/cmdline && [ \"\$(findmnt -nvo SOURCE /)\" = /dev/vda2 ]"
check "/var/lib/cast-gateway is on the data partition (vda4, bound from /data/cast-gateway), the gateway's user owns it" \
    "[ \"\$(findmnt -nvo SOURCE /data)\" = /dev/vda4 ] && [ \"\$(findmnt -nvo SOURCE /var/lib/cast-gateway)\" = /dev/vda4 ] \
     && [ \"\$(stat -c %i /var/lib/cast-gateway)\" = \"\$(stat -c %i /data/cast-gateway)\" ] && [ \"\$(stat -c %U /var/lib/cast-gateway)\" = cast-gateway ]"
check "the first boot grew the data partition to fill the disk (1 GiB more than the image)" \
    "[ \"\$(df -B1M --output=size /data | tail -1)\" -gt 1000 ]"
check "unique machine id; ssh host keys made on first boot on /data, none in the slot, sshd uses them" \
    "[ -s /etc/machine-id ] && ls /data/ssh/ssh_host_ed25519_key && ! ls /etc/ssh/ssh_host_* 2>/dev/null \
     && sshd -T 2>/dev/null | grep -qx 'hostkey /data/ssh/ssh_host_ed25519_key'"
# commit-slot marks the image's first slot good on its first boot at once:
# RAUC's U-Boot backend (fw_setenv through /etc/fw_env.config) gives A its
# 3 attempts back in the uboot.env the boot script wrote.
check "commit-slot committed slot A: uboot.env has BOOT_ORDER 'A B' and BOOT_A_LEFT 3 again (fw_printenv)" \
    "for i in \$(seq 1 60); do [ \"\$(fw_printenv -n BOOT_A_LEFT 2>/dev/null) \$(fw_printenv -n BOOT_ORDER 2>/dev/null)\" = '3 A B' ] && exit 0; sleep 2; done; \
     fw_printenv; systemctl status --no-pager cast-gateway-commit; exit 1"
check "RAUC names A the booted slot" \
    "rauc status --output-format=shell 2>/dev/null | grep -qx \"RAUC_SYSTEM_BOOTED_BOOTNAME='\\?A'\\?\""
if score=$(ssh_vm "systemd-analyze security cast-gateway.service --no-pager | tail -1" 2>&1); then
    echo "  live: $score"
    if awk -v s="$(echo "$score" | sed -n 's/.*: \([0-9.]*\) .*/\1/p')" 'BEGIN { exit !(s != "" && s + 0 <= 2.0) }'; then
        ok "live security score on trixie's systemd <= 2.0"
    else
        bad "live security score: $score"
    fi
fi
# A change to cast-gateway.conf on the card reloads the daemon (the .path unit).
check "editing cast-gateway.conf reloads the service" \
    "before=\$(systemctl show -p ExecMainPID --value cast-gateway); echo '# touched by the image test' >> /boot/firmware/cast-gateway.conf; \
     for i in \$(seq 1 30); do journalctl -u cast-gateway-config.service -q | grep -q . && journalctl -u cast-gateway.service -q | grep -qi 'reload\\|SIGHUP' && exit 0; sleep 1; done; exit 1"
restarts=$(ssh_vm "systemctl show -p NRestarts --value cast-gateway" 2>/dev/null || echo "?")
echo "  cast-gateway restarts so far: $restarts (non-zero means the watchdog fired: the daemon sends no WATCHDOG=1 yet)"

# 7. deploy/install against the VM: upgrade to a repacked newer version.
if [ -x "$REPO/deploy/install" ]; then
    version=$(dpkg-deb -f "$DEB" Version)
    dpkg-deb -R "$DEB" "$WORK/repack"
    sed -i "s/^Version: .*/Version: $version+upgrade1/" "$WORK/repack/DEBIAN/control"
    dpkg-deb --root-owner-group -b "$WORK/repack" "$WORK/cast-gateway-upgrade.deb" > /dev/null
    if "$REPO/deploy/install" root@127.0.0.1 --port "$VM_SSH_PORT" --identity "$WORK/id_ed25519" --no-host-key-check \
        --package "$WORK/cast-gateway-upgrade.deb" > "$WORK/install.log" 2>&1; then
        ok "deploy/install upgraded the box over ssh"
    else
        cat "$WORK/install.log" >&2
        bad "deploy/install"
    fi
    grep -q "active" "$WORK/install.log" && ok "deploy/install reported the service status" || bad "deploy/install printed no service status"
    check "after deploy/install: the new version runs and the card's config is kept" \
        "[ \"\$(dpkg-query -W -f='\${Version}' cast-gateway)\" = '$version+upgrade1' ] && systemctl is-active cast-gateway \
         && [ -L /etc/cast-gateway/gateway.conf ] && grep -q 'image test' /boot/firmware/cast-gateway.conf"
fi

vm_stop
echo "image-boot: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
