# Shared by the board scenarios (sourced inside the VM).
# shellcheck shell=bash
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
wait_for() {  # wait_for FILE TEXT [SECONDS]
    for _ in $(seq 1 $((${3:-20} * 10))); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    fail "no '$2' in $1"
}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT

# Sets rc, lirc_node and event_node for the rc-loopback device and loads an
# NEC keymap: 0x0401 KEY_1, 0x0408 KEY_PLAY, 0x0409 KEY_PAUSE, 0x040a KEY_VOLUMEUP.
setup_rc_loopback() {
    rc=""
    for device in /sys/class/rc/rc*; do
        grep -q "DRV_NAME=rc-loopback" "$device/uevent" && rc=$(basename "$device")
    done
    [ -n "$rc" ] || fail "no rc-loopback device"
    lirc_node=""
    for node in /sys/class/rc/"$rc"/lirc*; do [ -e "$node" ] && lirc_node=/dev/$(basename "$node") && break; done
    [ -n "$lirc_node" ] || fail "$rc has no lirc device"
    event_node=/dev/input/$(basename "$(ls -d /sys/class/rc/$rc/input*/event* | head -1)")
    echo "rc-loopback is $rc: $lirc_node, $event_node"
    cat > /tmp/keys.toml <<KEYS
[[protocols]]
name = "cast-gateway-board"
protocol = "nec"
[protocols.scancodes]
0x0401 = "KEY_1"
0x0408 = "KEY_PLAY"
0x0409 = "KEY_PAUSE"
0x040a = "KEY_VOLUMEUP"
KEYS
    ir-keytable -s "$rc" -c -p nec -w /tmp/keys.toml
}

# Starts lircd (devinput) on rc-loopback's event node, serving /tmp/lircd.sock.
# Sets lircd_pid.
start_lircd() {
    rm -f /tmp/lircd.sock /tmp/lircd.pid
    lircd --nodaemon --driver=devinput --device="$event_node" --output=/tmp/lircd.sock --pidfile=/tmp/lircd.pid \
        --logfile=/tmp/lircd.log /etc/lirc/lircd.conf.d/devinput.lircd.conf &
    lircd_pid=$!
    pids+=("$lircd_pid")
    for _ in $(seq 1 200); do [ -S /tmp/lircd.sock ] && break; sleep 0.1; done
    [ -S /tmp/lircd.sock ] || fail "lircd did not start"
}

# Loads kernel module $1 (with parameters $2...) from the copies the harness
# shares at /mnt/modules: the VM's root is the host's, whose /lib/modules
# belongs to another kernel.
load_module() {
    local name=$1 file
    shift
    file=$(ls /mnt/modules/"$name".ko* 2>/dev/null | head -1)
    [ -n "$file" ] || fail "module $name is not in /mnt/modules"
    insmod "$file" "$@" || fail "cannot load $name"
}

# How many lines of file $1 contain text $2.
count_lines() { grep -c -- "$2" "$1" 2>/dev/null || true; }

# Waits until file $1 has more than $3 lines containing text $2.
wait_for_more() {  # wait_for_more FILE TEXT COUNT [SECONDS]
    for _ in $(seq 1 $((${4:-20} * 10))); do [ "$(count_lines "$1" "$2")" -gt "$3" ] && return 0; sleep 0.1; done
    fail "no new '$2' in $1 (still $3)"
}

# Sends NEC scancode $1 through rc-loopback.
send_ir() { ir-ctl -d "$lirc_node" -S "nec:$1"; }

# Starts the receiver simulator on 127.0.0.1:8009, logging to $RESULTS/sim.jsonl.
start_simulator() {
    "$BIN/cast-receiver-sim" --port 8009 --log "$RESULTS/sim.jsonl" > /tmp/sim.out 2> /tmp/sim.err &
    pids+=($!)
}

# Presses KEY_1 (preset 1), KEY_PAUSE, KEY_PLAY and KEY_VOLUMEUP and checks
# the simulator received LOAD, PAUSE, PLAY and SET_VOLUME.
press_keys_and_check() {
    send_ir 0x0401; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"LOAD' 30
    wait_for "$RESULTS/gateway.log" '* PLAYING "Board Channel"' 30
    sleep 0.5; send_ir 0x0409; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"PAUSE' 30
    sleep 0.5; send_ir 0x0408; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"PLAY\\"' 30
    sleep 0.5; send_ir 0x040a; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"SET_VOLUME' 30
}

# CEC: vivid creates cec0 (its HDMI input, physical address 0.0.0.0: where a
# TV sits) and cec1 (its HDMI output, 1.0.0.0) on one virtual bus. libcec
# always opens /dev/cec0, so the real topology is built by giving that path
# to cec1 (bind mount) and playing the TV on the original cec0 node, at
# logical address 0.
TV_CEC=/tmp/cec-tv
setup_cec_tv() {
    [ -e /dev/cec0 ] && [ -e /dev/cec1 ] || fail "vivid did not create /dev/cec0 and /dev/cec1"
    local major minor
    major=$(( 0x$(stat -c %t /dev/cec0) )); minor=$(( 0x$(stat -c %T /dev/cec0) ))
    mknod "$TV_CEC" c "$major" "$minor"
    mount --bind /dev/cec1 /dev/cec0
    cec-ctl -d "$TV_CEC" --tv --osd-name "Test TV" > /tmp/cec-tv.log 2>&1 || fail "cannot configure the TV adapter"
    grep -q "Logical Address          : 0" /tmp/cec-tv.log || { cat /tmp/cec-tv.log; fail "the TV did not get logical address 0"; }
}

# Presses CEC user-control code $2 (e.g. 0x44) on the device at logical address $1.
send_cec() {
    cec-ctl -d "$TV_CEC" --to "$1" --user-control-pressed ui-cmd="$2" > /dev/null
    cec-ctl -d "$TV_CEC" --to "$1" --user-control-released > /dev/null
}

# Starts the gateway with the simulator as its device, no serial console, the
# extra config text $1, and preset 1 ("Board Channel"); waits for "* IDLE".
# Sets gateway_pid.
start_gateway() {
    printf '[device]\nhost = 127.0.0.1:8009\n[console]\ndevice = none\n[presets]\n1 = http://media.test/board.mp4 | Board Channel\n%s\n' \
        "$1" > /tmp/gateway.conf
    "$BIN/cast-gateway" run --config /tmp/gateway.conf 2> "$RESULTS/gateway.log" &
    gateway_pid=$!
    pids+=("$gateway_pid")
    wait_for "$RESULTS/gateway.log" "* IDLE" 60
}

# Sends one CEC message as the TV (cec-ctl options, e.g. --to 15 --standby).
tv_says() { cec-ctl -d "$TV_CEC" "$@" > /dev/null; }

# How many Cast messages of type $1 (e.g. PAUSE, PLAY\\\") the receiver got.
cast_messages() { count_lines "$RESULTS/sim.jsonl" "\\\"type\\\\\":\\\\\"$1"; }

# How many messages with opcode name $1 the TV received from the gateway
# (its monitor also shows what the TV itself sent: those are left out).
tv_received() { grep -v "Transmitted" "$RESULTS/tv-monitor.log" 2>/dev/null | grep -c -- "$1" || true; }

# Waits until the TV received more than $2 messages with text $1 from the gateway.
wait_for_tv_received() {  # wait_for_tv_received TEXT COUNT [SECONDS]
    for _ in $(seq 1 $((${3:-30} * 10))); do [ "$(tv_received "$1")" -gt "$2" ] && return 0; sleep 0.1; done
    fail "the TV received no new '$1' (still $2)"
}

# Starts watching the TV's side of the bus into $RESULTS/tv-monitor.log.
monitor_tv() {
    cec-ctl -d "$TV_CEC" --monitor >> "$RESULTS/tv-monitor.log" 2>&1 &
    pids+=($!)
}

# Unplugs the CEC adapters (vivid unbound from its platform device, as a USB
# adapter's disconnect would) and waits for the gateway to notice.
unplug_cec() {
    umount -l /dev/cec0
    [ -e /sys/bus/platform/drivers/vivid/vivid.0 ] || fail "vivid.0 is not bound to the vivid driver"
    echo vivid.0 > /sys/bus/platform/drivers/vivid/unbind
    [ ! -e /dev/cec1 ] || fail "/dev/cec1 is still there after unbinding vivid"
    wait_for "$RESULTS/gateway.log" "CEC adapter /dev/cec0 went away" 30
}

# Plugs them back and rebuilds the TV's side. The gateway is held still
# meanwhile: it would otherwise claim the TV's end (/dev/cec0, before cec1 is
# bound over it) on its retry.
replug_cec() {
    kill -STOP "$gateway_pid"
    echo vivid.0 > /sys/bus/platform/drivers/vivid/bind
    for _ in $(seq 1 100); do [ -e /dev/cec1 ] && break; sleep 0.1; done
    rm -f "$TV_CEC"
    setup_cec_tv
    kill -CONT "$gateway_pid"
}
