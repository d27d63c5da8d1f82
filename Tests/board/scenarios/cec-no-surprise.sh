#!/bin/bash
# HDMI-CEC: the gateway never wakes the TV or switches its input by surprise,
# with power-on-when-casting set: not when it starts while a cast plays, not
# on a reload, not when the CEC adapter vanishes and returns, not when the
# receiver restarts. Only a cast that starts does, once.
source "$(dirname "$0")/../lib.sh"
setup_cec_tv
monitor_tv
start_simulator
sim_pid=${pids[-1]}
wait_for /tmp/sim.out "listening" 30
# Something already plays when the gateway starts.
"$BIN/cast-gateway" cast http://media.test/film.mp4 --device 127.0.0.1:8009 > /dev/null
start_gateway "[cec]
role = playback
power-on-when-casting = true
tv-input = 2.0.0.0"
wait_for "$RESULTS/gateway.log" "open as playback" 60
wait_for "$RESULTS/gateway.log" '* PLAYING' 30
wait_for "$RESULTS/tv-monitor.log" "REQUEST_ACTIVE_SOURCE" 30
# The TV is in standby; the gateway knows.
tv_says --to 4 --report-power-status pwr-state=standby
wait_for "$RESULTS/gateway.log" 'tv: standby' 30

# A reload that changes the CEC settings (the adapter is reopened).
sed -i 's/^role = playback$/role = playback\nosd-name = Reloaded/' /tmp/gateway.conf
opens=$(count_lines "$RESULTS/gateway.log" "open as playback")
kill -HUP "$gateway_pid"
wait_for_more "$RESULTS/gateway.log" "open as playback" "$opens" 60
asked=$(tv_received GIVE_DEVICE_POWER_STATUS)

# The adapter vanishes and returns.
unplug_cec
opens=$(count_lines "$RESULTS/gateway.log" "open as playback")
replug_cec
monitor_tv
wait_for_more "$RESULTS/gateway.log" "open as playback" "$opens" 60
wait_for_tv_received GIVE_DEVICE_POWER_STATUS "$asked"   # asked again once the adapter is back

# The receiver restarts (its app is gone) and the gateway reconnects.
kill "$sim_pid"; wait "$sim_pid" 2>/dev/null || true
wait_for "$RESULTS/gateway.log" '* OFFLINE' 30
start_simulator
idle=$(count_lines "$RESULTS/gateway.log" '* IDLE')
wait_for_more "$RESULTS/gateway.log" '* IDLE' "$idle" 60

[ "$(tv_received IMAGE_VIEW_ON)" -eq 0 ] || fail "the TV was woken by surprise"
[ "$(tv_received TEXT_VIEW_ON)" -eq 0 ] || fail "the TV was woken by surprise"
[ "$(tv_received SET_STREAM_PATH)" -eq 0 ] || fail "the TV's input was switched by surprise"
[ "$(tv_received 'ACTIVE_SOURCE (0x82)')" -eq 0 ] || fail "the gateway claimed the TV's input"

# A cast that starts: the TV is woken and switched to the Chromecast, once.
"$BIN/cast-gateway" cast http://media.test/new.mp4 --device 127.0.0.1:8009 > /dev/null
wait_for "$RESULTS/gateway.log" "casting started: powering the TV on" 30
wait_for "$RESULTS/tv-monitor.log" "SET_STREAM_PATH" 30
# One power-on by the gateway (libcec itself may repeat Image View On while the TV still reports standby).
[ "$(count_lines "$RESULTS/gateway.log" "casting started: powering the TV on")" -eq 1 ] || fail "expected the gateway to power the TV on once when casting started"
[ "$(tv_received IMAGE_VIEW_ON)" -ge 1 ] || fail "the TV got no Image View On when casting started"
echo "PASS: no wake or input switch at start, reload, adapter return or receiver restart; one when a cast started"
