#!/bin/bash
# IR through the kernel straight to the gateway (no lircd): rc-loopback's
# input device is read by the gateway's evdev source, grabbed exclusively.
source "$(dirname "$0")/../lib.sh"
setup_rc_loopback
start_simulator
start_gateway "[evdev]
device = $event_node
grab = true"
wait_for "$RESULTS/gateway.log" "reading keys from $event_node (grabbed)" 60
press_keys_and_check
echo "PASS: KEY_1, KEY_PAUSE, KEY_PLAY, KEY_VOLUMEUP reached the receiver through rc-loopback and evdev"
