#!/bin/bash
# IR through the kernel: ir-ctl sends NEC scancodes through rc-loopback; the
# kernel decodes them into input events; lircd (devinput driver) reads them;
# the gateway maps them to Cast messages at the receiver simulator.
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
wait_for() {  # wait_for FILE TEXT [SECONDS]
    for _ in $(seq 1 $((${3:-20} * 10))); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    fail "no '$2' in $1"
}
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT

rc=""
for device in /sys/class/rc/rc*; do
    grep -q "DRV_NAME=rc-loopback" "$device/uevent" && rc=$(basename "$device")
done
[ -n "$rc" ] || fail "no rc-loopback device"
lirc_node=/dev/$(ls "/sys/class/rc/$rc" | grep -m1 '^lirc')
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

lircd --nodaemon --driver=devinput --device="$event_node" --output=/tmp/lircd.sock --pidfile=/tmp/lircd.pid \
    --logfile=/tmp/lircd.log /etc/lirc/lircd.conf.d/devinput.lircd.conf &
pids+=($!)
for _ in $(seq 1 200); do [ -S /tmp/lircd.sock ] && break; sleep 0.1; done
[ -S /tmp/lircd.sock ] || fail "lircd did not start"

"$BIN/cast-receiver-sim" --port 8009 --log "$RESULTS/sim.jsonl" > /tmp/sim.out 2> /tmp/sim.err &
pids+=($!)
cat > /tmp/gateway.conf <<CONF
[device]
host = 127.0.0.1:8009
[lirc]
socket = /tmp/lircd.sock
[console]
device = none
[presets]
1 = http://media.test/board.mp4 | Board Channel
CONF
"$BIN/cast-gateway" run --config /tmp/gateway.conf 2> "$RESULTS/gateway.log" &
pids+=($!)
wait_for "$RESULTS/gateway.log" "connected to lircd" 60
wait_for "$RESULTS/gateway.log" "* IDLE" 60

send() { ir-ctl -d "$lirc_node" -S "nec:$1"; }
send 0x0401; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"LOAD' 30
wait_for "$RESULTS/gateway.log" '* PLAYING "Board Channel"' 30
sleep 0.5; send 0x0409; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"PAUSE' 30
sleep 0.5; send 0x0408; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"PLAY\\"' 30
sleep 0.5; send 0x040a; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"SET_VOLUME' 30
echo "PASS: KEY_1, KEY_PAUSE, KEY_PLAY, KEY_VOLUMEUP reached the receiver through rc-loopback and lircd"
