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
umount -l /dev/cec0
[ -e /sys/bus/platform/drivers/vivid/vivid.0 ] || fail "vivid.0 is not bound to the vivid driver"
echo vivid.0 > /sys/bus/platform/drivers/vivid/unbind
[ ! -e /dev/cec1 ] || fail "/dev/cec1 is still there after unbinding vivid"
wait_for "$RESULTS/gateway.log" "CEC adapter /dev/cec0 went away" 30
kill -0 "$gateway_pid" || fail "the gateway died when its inputs vanished"
# The session was never touched: one LAUNCH, and the receiver still plays.
[ "$(count_lines "$RESULTS/sim.jsonl" '\"type\\":\\"LAUNCH')" -eq 1 ] || fail "the gateway relaunched"

# Return, in the other order.
lircd_connects=$(count_lines "$RESULTS/gateway.log" "connected to lircd")
cec_opens=$(count_lines "$RESULTS/gateway.log" "open as playback")
# The gateway is held still while the bus is rebuilt: it would otherwise
# claim the TV's end (/dev/cec0, before cec1 is bound over it) on its retry.
kill -STOP "$gateway_pid"
echo vivid.0 > /sys/bus/platform/drivers/vivid/bind
for _ in $(seq 1 100); do [ -e /dev/cec1 ] && break; sleep 0.1; done
rm -f "$TV_CEC"
setup_cec_tv
kill -CONT "$gateway_pid"
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
