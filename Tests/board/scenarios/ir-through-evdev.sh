#!/bin/bash
# IR through the kernel straight to the gateway (no lircd): rc-loopback's
# input device is read by the gateway's evdev source, grabbed exclusively.
source "$(dirname "$0")/../lib.sh"
setup_rc_loopback
start_simulator
cat > /tmp/gateway.conf <<CONF
[device]
host = 127.0.0.1:8009
[evdev]
device = $event_node
grab = true
[console]
device = none
[presets]
1 = http://media.test/board.mp4 | Board Channel
CONF
"$BIN/cast-gateway" run --config /tmp/gateway.conf 2> "$RESULTS/gateway.log" &
pids+=($!)
wait_for "$RESULTS/gateway.log" "reading keys from $event_node (grabbed)" 60
wait_for "$RESULTS/gateway.log" "* IDLE" 60
press_keys_and_check
echo "PASS: KEY_1, KEY_PAUSE, KEY_PLAY, KEY_VOLUMEUP reached the receiver through rc-loopback and evdev"
