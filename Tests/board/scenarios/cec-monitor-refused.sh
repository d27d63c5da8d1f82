#!/bin/bash
# The monitor role needs an adapter that sees all CEC traffic; on the kernel's
# adapter the gateway refuses it clearly and keeps running.
source "$(dirname "$0")/../lib.sh"
start_simulator
start_gateway "[cec]
role = monitor"
wait_for "$RESULTS/gateway.log" "the monitor role needs an adapter that can monitor all CEC traffic" 60
kill -0 "$gateway_pid" || fail "the gateway stopped"
echo "PASS: monitor role refused with a clear message; the gateway runs on"
