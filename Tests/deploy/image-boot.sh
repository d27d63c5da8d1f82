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
# 127.0.0.1: firstboot.conf was applied and its secret removed, the config
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
QEMU_PID=""
finish() {
    if [ -n "$QEMU_PID" ]; then kill "$QEMU_PID" 2>/dev/null || true; wait "$QEMU_PID" 2>/dev/null || true; fi
    cleanup_mounts
    if [ "$KEEP" = 1 ]; then echo "image-boot: kept $WORK"; else rm -rf "$WORK"; fi
}
trap finish EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# 1. The package and a simulator for arm64.
SIM=$REPO/dist/cast-receiver-sim_trixie_arm64
if [ -z "$DEB" ] || [ ! -x "$SIM" ]; then
    DEB=$(bash "$REPO/deploy/package" --arch arm64 --suite trixie --simulator | tail -1)
fi

# 2. The image, with the test's config, firstboot.conf and simulator unit.
ssh-keygen -q -t ed25519 -N "" -C cast-gateway-image-test -f "$WORK/id_ed25519"
cat > "$WORK/cast-gateway.conf" <<'CONF'
# The image test's config: the simulator inside the VM.
[device]
host = 127.0.0.1
[log]
level = info
[board]
name = qemu-arm64
CONF
cat > "$WORK/firstboot.conf" <<FIRSTBOOT
hostname = cg-image-test
wifi-ssid = Test Network
wifi-psk = not-a-real-secret-42
wifi-country = DE
ssh-key = $(cat "$WORK/id_ed25519.pub")
timezone = Europe/Berlin
FIRSTBOOT
cat > "$WORK/customize" <<CUSTOMIZE
#!/bin/sh
# Test only: the receiver simulator on 127.0.0.1:8009 inside the VM.
set -e
install -m 755 "$SIM" "\$1/usr/local/bin/cast-receiver-sim"
deps="$(cat "$SIM.depends" 2>/dev/null || true)"
if [ -n "\$deps" ] && ! chroot "\$1" dpkg -s \$deps >/dev/null 2>&1; then
    # The image's own resolv.conf is for the board: borrow the host's while apt runs.
    if [ -e "\$1/etc/resolv.conf" ] || [ -L "\$1/etc/resolv.conf" ]; then mv "\$1/etc/resolv.conf" "\$1/etc/resolv.conf.image"; fi
    cp -L /etc/resolv.conf "\$1/etc/resolv.conf"
    chroot "\$1" apt-get update -qq
    chroot "\$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \$deps >/dev/null
    rm -f "\$1/etc/resolv.conf"
    if [ -e "\$1/etc/resolv.conf.image" ] || [ -L "\$1/etc/resolv.conf.image" ]; then mv "\$1/etc/resolv.conf.image" "\$1/etc/resolv.conf"; fi
fi
cat > "\$1/etc/systemd/system/cast-receiver-sim.service" <<'UNIT'
[Unit]
Description=Test only: Cast receiver simulator on 127.0.0.1:8009
Before=cast-gateway.service
[Service]
ExecStart=/usr/local/bin/cast-receiver-sim --port 8009 --bind 127.0.0.1
[Install]
WantedBy=multi-user.target
UNIT
chroot "\$1" systemctl enable cast-receiver-sim.service
CUSTOMIZE
chmod +x "$WORK/customize"
# The update certificate the image trusts, as a real build would give it.
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/O=cast-gateway/CN=image test signing" \
    -keyout "$WORK/signing.key.pem" -out "$WORK/signing.cert.pem" 2> "$WORK/openssl.log" \
    || { cat "$WORK/openssl.log" >&2; bad "openssl could not make the test's signing certificate"; exit 1; }
start=$(date +%s)
if bash "$REPO/deploy/image" --board qemu-arm64 --package "$DEB" --config "$WORK/cast-gateway.conf" \
    --firstboot "$WORK/firstboot.conf" --customize "$WORK/customize" --keyring "$WORK/signing.cert.pem" --output "$WORK/test.img" > "$WORK/image.log" 2>&1; then
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

# 4. Boot through U-Boot: qemu and qemu_arm64's u-boot.bin from the boot
#    tools' chroot (bookworm's qemu breaks U-Boot's flash writes; see
#    ensure_boot_tools), U-Boot's own environment in flash bank 1. ttyAMA0
#    (U-Boot's console, then the gateway's) on a socket with a log of all it
#    printed, the kernel console on hvc0 into a file, ssh forwarded from
#    127.0.0.1 only. The test's files are at the same path in the chroot.
#    No option ROM for the network card (romfile=): U-Boot boots from the
#    disk, and the chroot has no ipxe-qemu.
ensure_boot_tools
chroot_mounts "$BOOT_TOOLS"
bind_mount "$WORK" "$BOOT_TOOLS$WORK"
truncate -s 64M "$WORK/flash1.img"
ssh_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
boot_started=$(date +%s.%N)
# chroot execs qemu: $! is qemu's pid.
chroot "$BOOT_TOOLS" qemu-system-aarch64 -M virt -cpu cortex-a72 -m 1024 -smp 2 -accel tcg -display none -monitor none -no-reboot \
    -bios /usr/lib/u-boot/qemu_arm64/u-boot.bin -drive "if=pflash,format=raw,index=1,file=$WORK/flash1.img" \
    -drive "if=none,id=disk,format=raw,file=$WORK/test.img" -device virtio-blk-device,drive=disk \
    -netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$ssh_port-:22" -device virtio-net-pci,netdev=net0,romfile= \
    -chardev "socket,id=uart,path=$WORK/ttyAMA0.sock,server=on,wait=off,logfile=$WORK/serial.log" -serial chardev:uart \
    -device virtio-serial-device -chardev "file,id=hvc,path=$WORK/console.log" -device virtconsole,chardev=hvc \
    < /dev/null > "$WORK/qemu.log" 2>&1 &
QEMU_PID=$!

# 5. Type `status` on the serial console until it answers `connected`.
cat > "$WORK/console.py" <<'PY'
import socket, sys, time
path, deadline, started = sys.argv[1], time.time() + float(sys.argv[2]), float(sys.argv[3])
# U-Boot shares the UART and a key stops its autoboot: type nothing before
# it has handed over to the kernel (qemu's log of the UART says when).
uart_log, qemu_pid = sys.argv[4], int(sys.argv[5])
import os
def qemu_alive():
    try:
        os.kill(qemu_pid, 0)
        return True
    except OSError:
        return False
def kernel_started():
    try:
        with open(uart_log, "rb") as f:
            return b"Starting kernel" in f.read()
    except OSError:
        return False
sock = None
while time.time() < deadline and sock is None and qemu_alive():
    try:
        sock = socket.socket(socket.AF_UNIX); sock.connect(path)
    except OSError:
        sock = None; time.sleep(0.5)
if sock is None:
    print("no serial socket (qemu %s)" % ("running" if qemu_alive() else "exited: see qemu.log")); sys.exit(1)
sock.settimeout(2)
# The answer to `status` names the link state; while connected, this build
# may render it as the player state alone ("* IDLE vol 50%"), which
# StatusLine only shows when connected: report which form was seen.
import re
connected_form = re.compile(r"^\* (IDLE|READY|PLAYING|PAUSED|BUFFERING)\b")
seen = b""
while time.time() < deadline and qemu_alive():
    # (The UART's input backs up until the gateway reads it: never block.)
    try:
        if kernel_started():
            sock.sendall(b"status\r")
    except (socket.timeout, BlockingIOError):
        pass
    end = time.time() + 5
    while time.time() < end:
        try:
            data = sock.recv(4096)
        except socket.timeout:
            break
        seen += data
        lines = seen.replace(b"\r", b"\n").split(b"\n")
        for line in lines:
            text = line.decode("utf-8", "replace").replace("cast-gateway> ", "").strip()
            if "connected" in text and "disconnected" not in text:
                print("%.1f word %s" % (time.time() - started, text)); sys.exit(0)
            if connected_form.match(text):
                print("%.1f form %s" % (time.time() - started, text)); sys.exit(0)
    seen = seen[-4096:]
print(("qemu exited; " if not qemu_alive() else "") + "no 'connected' on the console; last output: " + seen[-600:].decode("utf-8", "replace"))
sys.exit(1)
PY
if answer=$(python3 "$WORK/console.py" "$WORK/ttyAMA0.sock" 900 "$boot_started" "$WORK/serial.log" "$QEMU_PID"); then
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
ssh_vm() {
    ssh -q -i "$WORK/id_ed25519" -p "$ssh_port" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o ConnectTimeout=10 -o BatchMode=yes root@127.0.0.1 "$@"
}
for _ in $(seq 1 120); do ssh_vm true 2>/dev/null && break; kill -0 "$QEMU_PID" 2>/dev/null || break; sleep 2; done
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
check "firstboot.conf applied: hostname, time zone, ssh key, Wi-Fi" \
    "[ \"\$(hostname)\" = cg-image-test ] && [ \"\$(readlink /etc/localtime)\" = /usr/share/zoneinfo/Europe/Berlin ] \
     && grep -q 'ssid=\"Test Network\"' /etc/wpa_supplicant/wpa_supplicant-wlan0.conf && grep -q 'country=DE' /etc/wpa_supplicant/wpa_supplicant-wlan0.conf"
check "firstboot.conf renamed, its secret gone from the card and from the Wi-Fi config" \
    "[ ! -e /boot/firmware/firstboot.conf ] && [ -f /boot/firmware/firstboot.conf.applied ] \
     && ! grep -rq not-a-real-secret-42 /boot/firmware /etc/wpa_supplicant"
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
    if "$REPO/deploy/install" root@127.0.0.1 --port "$ssh_port" --identity "$WORK/id_ed25519" --no-host-key-check \
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

ssh_vm "poweroff" 2>/dev/null || true
for _ in $(seq 1 60); do kill -0 "$QEMU_PID" 2>/dev/null || break; sleep 1; done
echo "image-boot: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
