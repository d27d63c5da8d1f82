#!/bin/bash
# HDMI-CEC, playback role: the TV sends remote keys to the gateway's adapter
# (held through libcec); a key mapped to tv-on makes the gateway send Image
# View On to the TV.
source "$(dirname "$0")/../lib.sh"
setup_cec_tv
cec-ctl -d "$TV_CEC" --monitor > "$RESULTS/tv-monitor.log" 2>&1 &
pids+=($!)
start_simulator
start_gateway "[cec]
role = playback
osd-name = Board Gateway
[keys.cec]
F2_RED = tv-on"
wait_for "$RESULTS/gateway.log" "open as playback" 60
sleep 1
address=4  # the first playback device
send_cec $address 0x21; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"LOAD' 30      # NUMBER1 -> preset 1
wait_for "$RESULTS/gateway.log" '* PLAYING "Board Channel"' 30
sleep 0.5; send_cec $address 0x46; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"PAUSE' 30   # PAUSE
sleep 0.5; send_cec $address 0x44; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"PLAY\\"' 30  # PLAY
sleep 0.5; send_cec $address 0x41; wait_for "$RESULTS/sim.jsonl" '\"type\\":\\"SET_VOLUME' 30  # VOLUME_UP
sleep 0.5; send_cec $address 0x72                                                            # F2_RED -> tv-on
wait_for "$RESULTS/tv-monitor.log" "IMAGE_VIEW_ON" 30
echo "PASS: CEC keys reached the receiver and tv-on reached the TV"
