#!/bin/bash
# The status LEDs on a real kernel GPIO character device (the test-only
# cg_gpio_test chip): line values for each gateway state, read back from the
# module, and every line switched off and released on SIGTERM.
source "$(dirname "$0")/../lib.sh"
values() { cat /sys/module/cg_gpio_test/parameters/values; }   # CG_LED0..7
line() { values | cut -d, -f$(( $1 + 1 )); }
# Samples a line for SECONDS and prints the distinct values seen ("0", "1" or "0 1").
seen() { for _ in $(seq 1 $(( $2 * 20 ))); do line "$1"; sleep 0.05; done | sort -u | tr '\n' ' ' | sed 's/ $//'; }
mount -t debugfs debugfs /sys/kernel/debug
ls /dev/gpiochip* || fail "no GPIO character device"

# A running lircd, so no input is missing (else the error LED flashes code 4).
lircd --nodaemon --driver=file --device=/dev/null --output=/tmp/lircd.sock --pidfile=/tmp/lircd.pid \
    --logfile=/tmp/lircd.log /etc/lirc/lircd.conf.d/devinput.lircd.conf &
pids+=($!)
for _ in $(seq 1 200); do [ -S /tmp/lircd.sock ] && break; sleep 0.1; done
"$BIN/cast-receiver-sim" --port 8009 > /tmp/sim.out 2> /tmp/sim.err &
SIM=$!
pids+=("$SIM")
start_gateway "[lirc]
socket = /tmp/lircd.sock
[leds]
power = CG_LED0
link = CG_LED1
play = cast-gateway-test:2
error = CG_LED3 active-low"
sleep 0.5
[ "$(grep -c '|cast-gateway ' /sys/kernel/debug/gpio)" = 4 ] || { cat /sys/kernel/debug/gpio; fail "the four LED lines are not claimed"; }
echo "connected, idle: $(values)"
[ "$(line 1)" = 1 ] || fail "link LED should be on when connected"
[ "$(line 2)" = 0 ] || fail "play LED should be off when idle"
[ "$(line 3)" = 1 ] || fail "error LED (active-low) should be off, i.e. high"
[ "$(seen 0 3)" = "0 1" ] || fail "power LED should beat while running"

"$BIN/cast-gateway" cast http://media.test/leds.mp4 --device 127.0.0.1:8009 > /dev/null
wait_for "$RESULTS/gateway.log" "* PLAYING" 30
sleep 0.3
[ "$(line 2)" = 1 ] || fail "play LED should be on while playing"
"$BIN/cast-gateway" control pause --device 127.0.0.1:8009 > /dev/null
wait_for "$RESULTS/gateway.log" "* PAUSED" 30
[ "$(seen 2 3)" = "0 1" ] || fail "play LED should blink slowly while paused"

kill -9 $SIM
wait_for "$RESULTS/gateway.log" "* OFFLINE" 30
[ "$(seen 1 2)" = "0 1" ] || fail "link LED should blink while reconnecting"
[ "$(seen 3 4)" = "0 1" ] || fail "error LED should flash code 2 while the device is unreachable"
echo "reconnecting: error LED flashes"

kill -TERM $gateway_pid
wait $gateway_pid || true
echo "after SIGTERM: $(values)"
[ "$(values | cut -d, -f1-4)" = "0,0,0,1" ] || fail "LEDs must be off after shutdown (error is active-low: high)"
if grep -q '|cast-gateway ' /sys/kernel/debug/gpio; then cat /sys/kernel/debug/gpio; fail "lines still claimed after shutdown"; fi
echo "PASS: LED line values follow the state and are released on shutdown"
