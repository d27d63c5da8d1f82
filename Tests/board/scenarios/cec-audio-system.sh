#!/bin/bash
# HDMI-CEC, audio-system role: the gateway registers as logical address 5, so
# the TV sends its volume keys to it; they become Cast volume changes.
source "$(dirname "$0")/../lib.sh"
setup_cec_tv
start_simulator
start_gateway "[cec]
role = audio-system"
wait_for "$RESULTS/gateway.log" "open as audio-system" 60
sleep 1
send_cec 5 0x41; wait_for "$RESULTS/sim.jsonl" '\"level\\":0.55' 30   # VOLUME_UP
sleep 0.5; send_cec 5 0x43; wait_for "$RESULTS/sim.jsonl" '\"muted\\":true' 30   # MUTE
echo "PASS: the TV's volume keys reached the Cast device through the audio-system role"
