# shellcheck shell=bash
# The qemu-arm64 image under qemu-system-aarch64 and the real U-Boot, shared
# by Tests/deploy/image-boot.sh and Tests/deploy/update-boot.sh (sourced
# after deploy/lib.sh; the caller sets WORK and traps vm_finish on EXIT).
#
#   vm_test_files SIM      the test's ssh key, cast-gateway.conf (simulator
#                          at 127.0.0.1 in the VM), firstboot.conf, the
#                          --customize script that adds the simulator, and a
#                          signing key and certificate, all in $WORK
#   vm_start IMAGE [QEMU-OPTION...]
#                          qemu and u-boot-qemu's qemu_arm64 from the boot
#                          tools' chroot; sets QEMU_PID and VM_SSH_PORT
#   vm_console MODE TIMEOUT [SINCE [PATTERN]]
#                          types `status` on the emulated ttyAMA0 once the
#                          kernel started after byte SINCE of the UART's log,
#                          until the answer says connected (MODE connected:
#                          prints "SECONDS word|form LINE") or a line matches
#                          the Python regex PATTERN (MODE line: prints it)
#   ssh_vm ARGS...         ssh to root in the VM; vm_wait_ssh TIMEOUT
#   vm_wait_log PATTERN COUNT TIMEOUT [SINCE]
#                          waits until the UART's log after byte SINCE holds
#                          PATTERN (grep -E) COUNT times, qemu still running
#   vm_boot_offset SINCE SLOT
#                          prints the byte offset of U-Boot's last "booting
#                          slot SLOT" line after byte SINCE: a SINCE for that boot
#   vm_stop                poweroff, then qemu's pid killed if it is still there
#   vm_power_cut           qemu's pid killed with SIGKILL (no shutdown: a power
#                          cut); vm_start on the same disk boots it again
# The VM's time zone, host name and Wi-Fi come from firstboot.conf; the
# image-boot test checks them.
QEMU_PID=""
VM_SSH_PORT=""

vm_finish() {
    if [ -n "$QEMU_PID" ]; then kill "$QEMU_PID" 2>/dev/null || true; wait "$QEMU_PID" 2>/dev/null || true; fi
    cleanup_mounts
}

vm_test_files() {
    local sim=$1
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
install -m 755 "$sim" "\$1/usr/local/bin/cast-receiver-sim"
deps="$(cat "$sim.depends" 2>/dev/null || true)"
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
        || { cat "$WORK/openssl.log" >&2; die "openssl could not make the test's signing certificate"; }
}

# vm_start IMAGE [QEMU-OPTION...]: boot through U-Boot: qemu and
# qemu_arm64's u-boot.bin from the boot tools' chroot (bookworm's qemu
# breaks U-Boot's flash writes; see ensure_boot_tools), U-Boot's own
# environment in flash bank 1. ttyAMA0 (U-Boot's console, then the
# gateway's) on a socket with a log of all it printed (serial.log, kept
# across the VM's own reboots and appended to by the next qemu after a
# power cut), the kernel console on hvc0 into console.log (appended too), ssh forwarded from 127.0.0.1 only. The test's files are at
# the same path in the chroot. No option ROM for the network card
# (romfile=): U-Boot boots from the disk, and the chroot has no ipxe-qemu.
vm_start() {
    local disk=$1
    shift
    ensure_boot_tools
    chroot_mounts "$BOOT_TOOLS"
    bind_mount "$WORK" "$BOOT_TOOLS$WORK"
    [ -f "$WORK/flash1.img" ] || truncate -s 64M "$WORK/flash1.img"
    VM_SSH_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    VM_STARTED=$(date +%s.%N)
    # chroot execs qemu: $! is qemu's pid.
    chroot "$BOOT_TOOLS" qemu-system-aarch64 -M virt -cpu cortex-a72 -m 1024 -smp 2 -accel tcg -display none -monitor none "$@" \
        -bios /usr/lib/u-boot/qemu_arm64/u-boot.bin -drive "if=pflash,format=raw,index=1,file=$WORK/flash1.img" \
        -drive "if=none,id=disk,format=raw,file=$disk" -device virtio-blk-device,drive=disk \
        -netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$VM_SSH_PORT-:22" -device virtio-net-pci,netdev=net0,romfile= \
        -chardev "socket,id=uart,path=$WORK/ttyAMA0.sock,server=on,wait=off,logfile=$WORK/serial.log,logappend=on" -serial chardev:uart \
        -device virtio-serial-device -chardev "file,id=hvc,path=$WORK/console.log,append=on" -device virtconsole,chardev=hvc \
        < /dev/null > "$WORK/qemu.log" 2>&1 &
    QEMU_PID=$!
    cat > "$WORK/console.py" <<'PY'
import os, re, socket, sys, time
mode, path, deadline, started = sys.argv[1], sys.argv[2], time.time() + float(sys.argv[3]), float(sys.argv[4])
# U-Boot shares the UART and a key stops its autoboot: type nothing before
# the gateway has opened the console (its banner in qemu's log of the
# UART), looking only past byte `since` (the boot this call is about).
# Typing earlier also wedges qemu's PL011: input that arrives while the
# kernel has the UART disabled stops qemu reading the socket for good
# (seen after a reboot: rx 0 in /proc/tty/driver/ttyAMA). A build without
# the banner gets typed at 120 s after "Starting kernel".
uart_log, qemu_pid, since = sys.argv[5], int(sys.argv[6]), int(sys.argv[7])
kernel_seen = None
pattern = re.compile(sys.argv[8]) if mode == "line" else None
def qemu_alive():
    try:
        os.kill(qemu_pid, 0)
        return True
    except OSError:
        return False
def kernel_started():
    global kernel_seen
    try:
        with open(uart_log, "rb") as f:
            f.seek(since)
            text = f.read()
    except OSError:
        return False
    if b"cast-gateway console" in text:
        return True
    if kernel_seen is None and b"Starting kernel" in text:
        kernel_seen = time.time()
    return kernel_seen is not None and time.time() - kernel_seen > 120
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
        # Only whole lines: an answer can arrive in two reads, and its first
        # part alone may match already ("... back on 0.1" for "... 0.1.0+git1").
        lines = seen.replace(b"\r", b"\n").split(b"\n")[:-1]
        for line in lines:
            text = line.decode("utf-8", "replace").replace("cast-gateway> ", "").strip()
            if mode == "line":
                if pattern.search(text):
                    print("%.1f line %s" % (time.time() - started, text)); sys.exit(0)
                continue
            if "connected" in text and "disconnected" not in text:
                print("%.1f word %s" % (time.time() - started, text)); sys.exit(0)
            if connected_form.match(text):
                print("%.1f form %s" % (time.time() - started, text)); sys.exit(0)
    seen = seen[-4096:]
want = "a line matching %r" % sys.argv[8] if mode == "line" else "'connected'"
print(("qemu exited; " if not qemu_alive() else "") + "no %s on the console; last output: " % want + seen[-600:].decode("utf-8", "replace"))
sys.exit(1)
PY
}

# vm_console MODE TIMEOUT [SINCE [PATTERN]] (above); seconds are counted
# from SINCE_TIME (default: qemu's start).
vm_console() {
    python3 "$WORK/console.py" "$1" "$WORK/ttyAMA0.sock" "$2" "${VM_SINCE_TIME:-$VM_STARTED}" \
        "$WORK/serial.log" "$QEMU_PID" "${3:-0}" "${4:-}"
}

# The UART log's size now: a SINCE for the next boot.
vm_log_size() { stat -c %s "$WORK/serial.log" 2>/dev/null || echo 0; }

# vm_wait_log PATTERN COUNT TIMEOUT [SINCE]
vm_wait_log() {
    local pattern=$1 count=$2 timeout=$3 since=${4:-0} end
    end=$(( $(date +%s) + timeout ))
    while [ "$(date +%s)" -lt "$end" ]; do
        [ "$(tail -c +$((since + 1)) "$WORK/serial.log" 2>/dev/null | grep -acE "$pattern")" -ge "$count" ] && return 0
        kill -0 "$QEMU_PID" 2>/dev/null || return 1
        sleep 2
    done
    return 1
}

# vm_boot_offset SINCE SLOT (above); SINCE itself if there is no such line.
vm_boot_offset() {
    local at
    at=$(tail -c +$(($1 + 1)) "$WORK/serial.log" | grep -abo "cast-gateway: booting slot $2" | tail -1 | cut -d: -f1)
    echo $(($1 + ${at:-0}))
}

ssh_vm() {
    ssh -q -i "$WORK/id_ed25519" -p "$VM_SSH_PORT" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o ConnectTimeout=10 -o BatchMode=yes root@127.0.0.1 "$@"
}
scp_vm() {  # scp_vm FILE REMOTE-PATH
    scp -q -i "$WORK/id_ed25519" -P "$VM_SSH_PORT" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        -o ConnectTimeout=10 -o BatchMode=yes "$1" "root@127.0.0.1:$2"
}

# vm_wait_ssh TIMEOUT: until ssh answers (or qemu is gone).
vm_wait_ssh() {
    local end=$(( $(date +%s) + $1 ))
    while [ "$(date +%s)" -lt "$end" ]; do
        ssh_vm true 2>/dev/null && return 0
        kill -0 "$QEMU_PID" 2>/dev/null || return 1
        sleep 2
    done
    return 1
}

# vm_stop: poweroff over ssh, wait up to a minute for qemu to end, then kill it.
vm_stop() {
    [ -n "$QEMU_PID" ] || return 0
    ssh_vm "poweroff" 2>/dev/null || true
    local _
    for _ in $(seq 1 60); do kill -0 "$QEMU_PID" 2>/dev/null || break; sleep 1; done
    kill "$QEMU_PID" 2>/dev/null || true
    wait "$QEMU_PID" 2>/dev/null || true
    QEMU_PID=""
}

# vm_power_cut: SIGKILL to qemu's pid, as a power cut: the guest flushes
# nothing; what qemu had written to the disk image stays.
vm_power_cut() {
    [ -n "$QEMU_PID" ] || return 0
    kill -KILL "$QEMU_PID" 2>/dev/null || true
    wait "$QEMU_PID" 2>/dev/null || true
    QEMU_PID=""
}
