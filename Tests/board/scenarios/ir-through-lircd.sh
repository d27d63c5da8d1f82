#!/bin/bash
# IR through the kernel and lircd: ir-ctl sends NEC scancodes through
# rc-loopback; the kernel decodes them; lircd (devinput driver) reads the
# input events; the gateway maps them to Cast messages at the simulator.
source "$(dirname "$0")/../lib.sh"
setup_rc_loopback
lircd --nodaemon --driver=devinput --device="$event_node" --output=/tmp/lircd.sock --pidfile=/tmp/lircd.pid \
    --logfile=/tmp/lircd.log /etc/lirc/lircd.conf.d/devinput.lircd.conf &
pids+=($!)
for _ in $(seq 1 200); do [ -S /tmp/lircd.sock ] && break; sleep 0.1; done
[ -S /tmp/lircd.sock ] || fail "lircd did not start"
start_simulator
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
press_keys_and_check
echo "PASS: KEY_1, KEY_PAUSE, KEY_PLAY, KEY_VOLUMEUP reached the receiver through rc-loopback and lircd"
