#!/bin/bash
# IR through the kernel and lircd: ir-ctl sends NEC scancodes through
# rc-loopback; the kernel decodes them; lircd (devinput driver) reads the
# input events; the gateway maps them to Cast messages at the simulator.
source "$(dirname "$0")/../lib.sh"
setup_rc_loopback
start_lircd
start_simulator
start_gateway "[lirc]
socket = /tmp/lircd.sock"
wait_for "$RESULTS/gateway.log" "connected to lircd" 60
press_keys_and_check
echo "PASS: KEY_1, KEY_PAUSE, KEY_PLAY, KEY_VOLUMEUP reached the receiver through rc-loopback and lircd"
