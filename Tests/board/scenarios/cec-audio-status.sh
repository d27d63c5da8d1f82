#!/bin/bash
# HDMI-CEC, audio-system role: the TV asks the gateway for its volume
# (<Give Audio Status>) and sees the Cast volume in <Report Audio Status>,
# the gateway's answer last (libcec answers "unknown" too); a SET_VOLUME from
# another sender reaches the TV's volume bar; System Audio Mode and power
# status are answered as an audio system does.
source "$(dirname "$0")/../lib.sh"
setup_cec_tv
monitor_tv
start_simulator
start_gateway "[cec]
role = audio-system"
wait_for "$RESULTS/gateway.log" "open as audio-system" 60
# The Cast volume, set by another sender: the gateway reports it unasked.
"$BIN/cast-gateway" control volume 40 --device 127.0.0.1:8009 > /dev/null
percent=40

# The last <Report Audio Status> the TV got says volume $1 (percent), mute $2 (on/off).
last_report_says() {
    local report
    report=$(grep -v "Transmitted" "$RESULTS/tv-monitor.log" | grep -A3 "REPORT_AUDIO_STATUS" | grep -E "aud-vol-status|aud-mute-status" | tail -2 | tr '\n' ' ')
    echo "$report" | grep -qE "aud-mute-status: $2" && echo "$report" | grep -qiE "aud-vol-status: ($1|0x$(printf '%02x' "$1"))\b"
}

for _ in $(seq 1 300); do last_report_says "$percent" off && break; sleep 0.1; done
last_report_says "$percent" off || fail "the TV was not told the volume $percent unasked"
reports=$(tv_received REPORT_AUDIO_STATUS)
tv_says --to 5 --give-audio-status
# libcec's answer ("unknown") and the gateway's, then the gateway's again: it is the last.
wait_for_tv_received REPORT_AUDIO_STATUS $((reports + 2))
last_report_says "$percent" off || { grep -A3 REPORT_AUDIO_STATUS "$RESULTS/tv-monitor.log" | tail -12; fail "the TV does not end with the Cast volume $percent"; }

# SET_VOLUME from another sender: the TV's bar follows.
"$BIN/cast-gateway" control volume 30 --device 127.0.0.1:8009 > /dev/null
for _ in $(seq 1 300); do last_report_says 30 off && break; sleep 0.1; done
last_report_says 30 off || fail "the TV was not told the new volume 30"
"$BIN/cast-gateway" control mute --device 127.0.0.1:8009 > /dev/null
for _ in $(seq 1 300); do last_report_says 30 on && break; sleep 0.1; done
last_report_says 30 on || fail "the TV was not told of the mute"

# System Audio Mode, and power status.
tv_says --to 5 --system-audio-mode-request phys-addr=0.0.0.0
wait_for_tv_received SET_SYSTEM_AUDIO_MODE 0
tv_says --to 5 --give-system-audio-mode-status
wait_for_tv_received "SYSTEM_AUDIO_MODE_STATUS (" 0
grep -v "Transmitted" "$RESULTS/tv-monitor.log" | grep -A2 "SYSTEM_AUDIO_MODE_STATUS" | grep -q "sys-aud-status: on" \
    || fail "System Audio Mode is not on after the TV's request"
tv_says --to 5 --give-device-power-status
wait_for_tv_received REPORT_POWER_STATUS 0
echo "PASS: the TV ends with the Cast volume ($percent %), follows SET_VOLUME and mute from another sender; System Audio Mode and power status answered"
