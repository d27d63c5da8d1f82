#!/bin/bash
# Input devices vanish mid-run and come back: lircd stops and rc-loopback is
# unloaded; the CEC adapter is unplugged (vivid unbound from its platform
# device, as a USB adapter's disconnect would). The gateway says what it lost,
# keeps the Cast session, and takes keys from both again once they are back,
# without being restarted.
source "$(dirname "$0")/../lib.sh"
setup_rc_loopback
start_lircd
setup_cec_tv
start_simulator
start_gateway "[lirc]
socket = /tmp/lircd.sock
[cec]
role = playback
osd-name = Board Gateway"
wait_for "$RESULTS/gateway.log" "connected to lircd" 60
wait_for "$RESULTS/gateway.log" "open as playback" 60
send_ir 0x0401; wait_for "$RESULTS/gateway.log" '* PLAYING "Board Channel"' 30

# Vanish: lircd and its IR receiver, then the CEC adapter.
kill "$lircd_pid"; wait "$lircd_pid" 2>/dev/null || true
rmmod rc-loopback || fail "cannot unload rc-loopback"
wait_for "$RESULTS/gateway.log" "lost lircd" 30
unplug_cec
kill -0 "$gateway_pid" || fail "the gateway died when its inputs vanished"
# The session was never touched: one LAUNCH, and the receiver still plays.
[ "$(count_lines "$RESULTS/sim.jsonl" '\"type\\":\\"LAUNCH')" -eq 1 ] || fail "the gateway relaunched"

# Return, in the other order.
lircd_connects=$(count_lines "$RESULTS/gateway.log" "connected to lircd")
cec_opens=$(count_lines "$RESULTS/gateway.log" "open as playback")
replug_cec
load_module rc-loopback
setup_rc_loopback
start_lircd
wait_for_more "$RESULTS/gateway.log" "connected to lircd" "$lircd_connects" 60
wait_for_more "$RESULTS/gateway.log" "open as playback" "$cec_opens" 60

# Both work again: an IR key and a CEC key reach the receiver.
pauses=$(count_lines "$RESULTS/sim.jsonl" '\"type\\":\\"PAUSE')
send_ir 0x0409; wait_for_more "$RESULTS/sim.jsonl" '\"type\\":\\"PAUSE' "$pauses" 30
plays=$(count_lines "$RESULTS/sim.jsonl" '\"type\\":\\"PLAY\\"')
sleep 0.5; send_cec 4 0x44; wait_for_more "$RESULTS/sim.jsonl" '\"type\\":\\"PLAY\\"' "$plays" 30
[ "$(count_lines "$RESULTS/sim.jsonl" '\"type\\":\\"LAUNCH')" -eq 1 ] || fail "the gateway relaunched"
echo "PASS: lircd, rc-loopback and the CEC adapter vanished and returned; keys work again and the session was never relaunched"
