#!/bin/bash
# Inside the virtual board (see bench/cec-latency.sh): the TV (vivid's other
# CEC adapter, through cec-ctl) presses PAUSE and PLAY in turn; the bench
# holds the gateway's adapter through libcec and times each key from libcec's
# callback to the Cast frame written to the simulator.
source "$(dirname "$0")/../Tests/board/lib.sh"
keys=200
setup_cec_tv
"$BIN/cast-receiver-sim" --port 8009 --log-level warning > /tmp/sim.out 2>&1 &
pids+=($!)
wait_for /tmp/sim.out "listening" 30
"$BIN/cast-gateway-bench" cec-latency --device 127.0.0.1:8009 --count "$keys" > "$RESULTS/cec-latency.txt" 2>&1 &
bench=$!
pids+=("$bench")
wait_for "$RESULTS/cec-latency.txt" "cec open" 60
for index in $(seq 1 "$keys"); do
    if [ $((index % 2)) -eq 1 ]; then send_cec 4 0x46; else send_cec 4 0x44; fi   # PAUSE, PLAY
done
wait "$bench" || fail "the bench failed: $(cat "$RESULTS/cec-latency.txt")"
cat "$RESULTS/cec-latency.txt"
grep -q "^cec events=$keys " "$RESULTS/cec-latency.txt" || fail "not every key was measured"
