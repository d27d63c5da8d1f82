#!/bin/bash
# HDMI-CEC TV control: standby after the idle time with nothing cast, then
# power-on plus input selection when casting starts, as the TV sees them.
source "$(dirname "$0")/../lib.sh"
setup_cec_tv
cec-ctl -d "$TV_CEC" --monitor > "$RESULTS/tv-monitor.log" 2>&1 &
pids+=($!)
start_simulator
start_gateway "[cec]
power-on-when-casting = true
tv-input = 2.0.0.0
standby-after = 0.05"
wait_for "$RESULTS/gateway.log" "open as playback" 60
wait_for "$RESULTS/tv-monitor.log" "STANDBY" 30          # 3 s idle
"$BIN/cast-gateway" cast http://media.test/tv.mp4 --device 127.0.0.1:8009 > /dev/null
wait_for "$RESULTS/gateway.log" "casting started: powering the TV on" 30
wait_for "$RESULTS/tv-monitor.log" "IMAGE_VIEW_ON" 30
wait_for "$RESULTS/tv-monitor.log" "SET_STREAM_PATH" 30
grep -A2 "SET_STREAM_PATH" "$RESULTS/tv-monitor.log" | grep -q "2.0.0.0" || fail "the TV was not switched to input 2.0.0.0"
echo "PASS: standby after idle; power-on and input 2.0.0.0 (the Chromecast) when casting started"
