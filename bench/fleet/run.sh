#!/usr/bin/env bash
# Fleet scale harness: one mosquitto, N gateways (cast-gateway-bench fleet-node,
# each its own process with its own cast-receiver-sim), an observer, all on
# loopback. Measures group command -> Cast frame latency (p50/p99/max), broker
# and gateway CPU and RSS, and state messages/s at the broker while all play.
# Prints Markdown and keeps it in build/bench/fleet/results-N.md.
#
#   bench/fleet/run.sh              (N = 10 and 100)
#   ROOMS="10 50" ROUNDS=40 bench/fleet/run.sh
#   GATEWAY=run bench/fleet/run.sh  (the daemon itself, once it reads [mqtt])
#
# Needs mosquitto, mosquitto-clients (mosquitto_sub/pub) and python3.
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$REPO/build/bench/fleet
ROOMS=${ROOMS:-10 100}
ROUNDS=${ROUNDS:-20}
GATEWAY=${GATEWAY:-fleet-node}
mkdir -p "$OUT"
cd "$REPO"

for product in cast-receiver-sim cast-gateway-bench cast-gateway; do
    swift build -c release --static-swift-stdlib --product "$product" >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log" >&2; exit 1; }
done
BIN=$(swift build -c release --show-bin-path)
for tool in cast-receiver-sim cast-gateway-bench cast-gateway; do
    cp "$BIN/$tool" "$OUT/$tool" && strip "$OUT/$tool"
done

for rooms in $ROOMS; do
    python3 "$REPO/bench/fleet/fleet_bench.py" --rooms "$rooms" --rounds "$ROUNDS" --gateway "$GATEWAY" --bin "$OUT" --out "$OUT"
done
