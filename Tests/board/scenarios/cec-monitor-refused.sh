#!/bin/bash
# The monitor role needs an adapter that sees all CEC traffic; on the kernel's
# adapter the gateway refuses it clearly and keeps running.
source "$(dirname "$0")/../lib.sh"
start_simulator
printf '[device]\nhost = 127.0.0.1:8009\n[cec]\nrole = monitor\n[console]\ndevice = none\n' > /tmp/gateway.conf
"$BIN/cast-gateway" run --config /tmp/gateway.conf 2> "$RESULTS/gateway.log" &
pids+=($!)
wait_for "$RESULTS/gateway.log" "the monitor role needs an adapter that can monitor all CEC traffic" 60
wait_for "$RESULTS/gateway.log" "* IDLE" 60
kill -0 "${pids[-1]}" || fail "the gateway stopped"
echo "PASS: monitor role refused with a clear message; the gateway runs on"
