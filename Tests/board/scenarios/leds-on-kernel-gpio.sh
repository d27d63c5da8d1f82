#!/bin/bash
# The status LEDs on a real kernel GPIO character device (the test-only
# cg_gpio_test chip): line values for each gateway state, read back from the
# module, and every line switched off and released on SIGTERM.
source "$(dirname "$0")/../lib.sh"
values() { cat /sys/module/cg_gpio_test/parameters/values; }   # CG_LED0..7
line() { values | cut -d, -f$(( $1 + 1 )); }
# How often line $1 has changed value (the module counts every edge).
changes() { cut -d, -f$(( $1 + 1 )) /sys/module/cg_gpio_test/parameters/changes; }
# Succeeds once line $1 has gone on and off again (two more edges) within $2
# seconds: it blinks. Counting edges, not sampling values, sees a 100 ms pulse
# however slowly this emulated shell runs.
blinks() {
    local before
    before=$(changes "$1")
    for _ in $(seq 1 $(( $2 * 10 ))); do [ $(( $(changes "$1") - before )) -ge 2 ] && return 0; sleep 0.1; done
    return 1
}
# Waits up to $3 seconds for line $1 to read $2: the LED timer runs after the
# state change the log shows.
holds() { for _ in $(seq 1 $(( $3 * 10 ))); do [ "$(line "$1")" = "$2" ] && return 0; sleep 0.1; done; return 1; }
claimed() { grep -c '|cast-gateway ' /sys/kernel/debug/gpio || true; }
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
for _ in $(seq 1 100); do [ "$(claimed)" = 4 ] && break; sleep 0.1; done
[ "$(claimed)" = 4 ] || { cat /sys/kernel/debug/gpio; fail "the four LED lines are not claimed"; }
holds 1 1 10 || fail "link LED should be on when connected"
echo "connected, idle: $(values)"
[ "$(line 2)" = 0 ] || fail "play LED should be off when idle"
[ "$(line 3)" = 1 ] || fail "error LED (active-low) should be off, i.e. high"
blinks 0 10 || fail "power LED should beat while running"

"$BIN/cast-gateway" cast http://media.test/leds.mp4 --device 127.0.0.1:8009 > /dev/null
wait_for "$RESULTS/gateway.log" "* PLAYING" 30
holds 2 1 10 || fail "play LED should be on while playing"
"$BIN/cast-gateway" control pause --device 127.0.0.1:8009 > /dev/null
wait_for "$RESULTS/gateway.log" "* PAUSED" 30
blinks 2 10 || fail "play LED should blink slowly while paused"

kill -9 $SIM
wait_for "$RESULTS/gateway.log" "* OFFLINE" 30
blinks 1 10 || fail "link LED should blink while reconnecting"
blinks 3 10 || fail "error LED should flash code 2 while the device is unreachable"
echo "reconnecting: error LED flashes"

kill -TERM $gateway_pid
wait $gateway_pid || true
echo "after SIGTERM: $(values)"
[ "$(values | cut -d, -f1-4)" = "0,0,0,1" ] || fail "LEDs must be off after shutdown (error is active-low: high)"
if grep -q '|cast-gateway ' /sys/kernel/debug/gpio; then cat /sys/kernel/debug/gpio; fail "lines still claimed after shutdown"; fi
echo "PASS: LED line values follow the state and are released on shutdown"
