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
start_gateway "[lirc]
socket = /tmp/lircd.sock"
wait_for "$RESULTS/gateway.log" "connected to lircd" 60
press_keys_and_check
echo "PASS: KEY_1, KEY_PAUSE, KEY_PLAY, KEY_VOLUMEUP reached the receiver through rc-loopback and lircd"
