#!/bin/bash
# HDMI-CEC, audio-system role: the gateway registers as logical address 5, so
# the TV sends its volume keys to it; they become Cast volume changes.
source "$(dirname "$0")/../lib.sh"
setup_cec_tv
start_simulator
cat > /tmp/gateway.conf <<CONF
[device]
host = 127.0.0.1:8009
[cec]
role = audio-system
[console]
device = none
CONF
"$BIN/cast-gateway" run --config /tmp/gateway.conf 2> "$RESULTS/gateway.log" &
pids+=($!)
wait_for "$RESULTS/gateway.log" "open as audio-system" 60
wait_for "$RESULTS/gateway.log" "* IDLE" 60
sleep 1
send_cec 5 0x41; wait_for "$RESULTS/sim.jsonl" '\"level\\":0.55' 30   # VOLUME_UP
sleep 0.5; send_cec 5 0x43; wait_for "$RESULTS/sim.jsonl" '\"muted\\":true' 30   # MUTE
echo "PASS: the TV's volume keys reached the Cast device through the audio-system role"
