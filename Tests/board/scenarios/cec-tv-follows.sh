#!/bin/bash
# HDMI-CEC, the TV's own doings: the TV (vivid's other adapter, through
# cec-ctl) leaves the Chromecast's input, floods the bus with Active Source,
# goes to standby; each gives exactly one PAUSE at the receiver. What the
# gateway itself caused (its standby, its power-on) gives none. The gateway
# asks about the TV once at start and shows what it learnt.
source "$(dirname "$0")/../lib.sh"
setup_cec_tv
monitor_tv
start_simulator
start_gateway "[cec]
role = playback
tv-input = 2.0.0.0
[keys.cec]
F2_RED = tv-standby
F3_GREEN = tv-on"
wait_for "$RESULTS/gateway.log" "open as playback" 60
# Asked once, at start: power, vendor, name, active source.
wait_for "$RESULTS/tv-monitor.log" "GIVE_DEVICE_POWER_STATUS" 30
wait_for "$RESULTS/tv-monitor.log" "REQUEST_ACTIVE_SOURCE" 30
tv_says --to 4 --report-power-status pwr-state=on
tv_says --device-vendor-id vendor-id=0x6b746d   # a vendor libcec has no special handler for
wait_for "$RESULTS/gateway.log" 'tv: on;.*vendor Vizio (6b746d)' 30

# Something plays, cast by another sender.
"$BIN/cast-gateway" cast http://media.test/film.mp4 --device 127.0.0.1:8009 > /dev/null
wait_for "$RESULTS/gateway.log" '* PLAYING' 30
playing=$(count_lines "$RESULTS/gateway.log" '* PLAYING')
play_again() {  # another sender presses play; the gateway sees it
    "$BIN/cast-gateway" control play --device 127.0.0.1:8009 > /dev/null
    wait_for_more "$RESULTS/gateway.log" '* PLAYING' "$playing" 30
    playing=$(count_lines "$RESULTS/gateway.log" '* PLAYING')
}

# The TV shows the Chromecast: nothing. Then it switches to HDMI 3: one PAUSE.
tv_says --set-stream-path phys-addr=2.0.0.0
wait_for "$RESULTS/gateway.log" 'tv: on, showing HDMI 2 (the Chromecast)' 30
tv_says --routing-change orig-phys-addr=2.0.0.0,new-phys-addr=3.0.0.0
wait_for "$RESULTS/gateway.log" 'the TV switched to HDMI 3: pausing the cast' 30
wait_for_more "$RESULTS/sim.jsonl" '\"type\\":\\"PAUSE' 0 30
[ "$(cast_messages PAUSE)" -eq 1 ] || fail "expected one PAUSE after leaving the input, got $(cast_messages PAUSE)"

# A storm of Active Source, back and forth: one PAUSE.
play_again
for _ in $(seq 1 10); do
    tv_says --active-source phys-addr=3.0.0.0
    tv_says --active-source phys-addr=2.0.0.0
done
wait_for_more "$RESULTS/sim.jsonl" '\"type\\":\\"PAUSE' 1 30

# The TV's standby while playing: one PAUSE.
play_again
tv_says --to 15 --standby
tv_standby_at=$EPOCHSECONDS
wait_for "$RESULTS/gateway.log" 'the TV went to standby: pausing the cast' 30
wait_for_more "$RESULTS/sim.jsonl" '\"type\\":\\"PAUSE' 2 30
tv_says --to 4 --report-power-status pwr-state=on

# The gateway's own standby (a key mapped to tv-standby), confirmed by the
# TV's broadcast, and its own power-on with the TV waking on HDMI 3: no PAUSE.
# A PLAY key after each marks the point by which a PAUSE would have come.
# libcec 6 (this host's) passes on at most one <Standby> in 10 s, and has no
# way around it (libcec 7's command handler, which the gateway uses, has): the
# TV's confirmation must come more than 10 s after its last standby. That is
# a time window inside libcec, with nothing to wait for but the clock.
while [ $(( EPOCHSECONDS - tv_standby_at )) -le 11 ]; do sleep 0.5; done
play_again
standbys=$(tv_received STANDBY)
send_cec 4 0x72                                                             # F2_RED -> tv-standby
wait_for_tv_received STANDBY "$standbys"
standby_lines=$(count_lines "$RESULTS/gateway.log" 'tv: standby')
tv_says --to 15 --standby
wait_for_more "$RESULTS/gateway.log" 'tv: standby' "$standby_lines" 30
plays=$(cast_messages 'PLAY\\"')
sleep 0.5; send_cec 4 0x44; wait_for_more "$RESULTS/sim.jsonl" '\"type\\":\\"PLAY\\"' "$plays" 30
[ "$(tv_received IMAGE_VIEW_ON)" -eq 0 ] || fail "the gateway woke the TV before tv-on ($(tv_received IMAGE_VIEW_ON) Image View On)"
sleep 0.5; send_cec 4 0x73                                                  # F3_GREEN -> tv-on
wait_for_tv_received IMAGE_VIEW_ON 0
hdmi3_lines=$(count_lines "$RESULTS/gateway.log" 'tv: on, showing HDMI 3')
tv_says --to 4 --report-power-status pwr-state=on
tv_says --routing-change orig-phys-addr=2.0.0.0,new-phys-addr=3.0.0.0
wait_for_more "$RESULTS/gateway.log" 'tv: on, showing HDMI 3' "$hdmi3_lines" 30
plays=$(cast_messages 'PLAY\\"')
sleep 0.5; send_cec 4 0x44; wait_for_more "$RESULTS/sim.jsonl" '\"type\\":\\"PLAY\\"' "$plays" 30

[ "$(cast_messages PAUSE)" -eq 3 ] || fail "expected exactly 3 PAUSEs (input away, storm, TV standby), got $(cast_messages PAUSE)"
[ "$(cast_messages STOP)" -eq 0 ] || fail "the gateway stopped the cast"
[ "$(tv_received SET_STREAM_PATH)" -eq 0 ] || fail "the gateway switched the TV's input by itself"
echo "PASS: the TV's input change, an Active Source storm and its standby each paused once; the gateway's own standby and power-on did not"
