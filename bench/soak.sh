#!/usr/bin/env bash
# Soak: cast-gateway's daemon (release build) against cast-receiver-sim on
# loopback, driven through its serial console on a pseudo-terminal.
#   phase 1: SOAK_SECONDS of continuous commands (cast, pause/play, vol, seek,
#            queue/next/prev, status...) at RATE per second; RSS, descriptors,
#            threads and CPU sampled every SAMPLE_SECONDS to a CSV, growth
#            counted from the end of the warm-up (WARMUP_SECONDS);
#   phase 2: RESTARTS receiver restarts in a row (kill -9, start again on the
#            same port, wait until the daemon is connected again).
# Prints a Markdown table; files go to build/bench/soak-TAG.{csv,md,*.log}.
set -euo pipefail
usage() {
    cat <<'USAGE'
usage: bench/soak.sh [--no-build]
  Environment (defaults):
    SOAK_SECONDS=3600    length of phase 1, warm-up included
    WARMUP_SECONDS=300   growth is measured from here on
    RATE=10              console commands per second
    SAMPLE_SECONDS=30    sampling period of the CSV
    RESTARTS=1000        receiver restarts in phase 2 (0: none)
    GATEWAY_BIN, SIM_BIN use these binaries instead of building them (implies --no-build)
  --no-build   take the binaries already in build/bench (from bench/run.sh or an earlier soak)
Output: build/bench/soak-TAG.csv (samples), soak-TAG.md (the table),
        soak-TAG-daemon.log and soak-TAG-sim.log (the processes' own logs).
The full run takes SOAK_SECONDS plus about a second per restart; for a quick
check: SOAK_SECONDS=60 WARMUP_SECONDS=10 RESTARTS=20 bench/soak.sh
USAGE
}
BUILD=1
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --no-build) BUILD=0 ;;
    "") ;;
    *) usage >&2; exit 64 ;;
esac
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/bench
mkdir -p "$OUT"
cd "$REPO"

if [ -n "${GATEWAY_BIN:-}" ] || [ -n "${SIM_BIN:-}" ]; then
    BUILD=0
fi
GATEWAY_BIN=${GATEWAY_BIN:-$OUT/cast-gateway}
SIM_BIN=${SIM_BIN:-$OUT/cast-receiver-sim}
if [ "$BUILD" = 1 ]; then
    # As bench/run.sh builds them: release, static Swift stdlib, stripped.
    swift build -c release --static-swift-stdlib --product cast-gateway >/dev/null
    swift build -c release --static-swift-stdlib --product cast-receiver-sim >/dev/null
    BIN=$(swift build -c release --show-bin-path)
    for tool in cast-gateway cast-receiver-sim; do
        cp "$BIN/$tool" "$OUT/$tool" && strip "$OUT/$tool"
    done
fi
for binary in "$GATEWAY_BIN" "$SIM_BIN"; do
    [ -x "$binary" ] || { echo "soak: $binary is missing (run without --no-build)" >&2; exit 66; }
done

helper=""
cleanup() {
    if [ -n "$helper" ]; then
        kill "$helper" 2>/dev/null || true  # it stops its own children by pid
        wait "$helper" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

python3 "$REPO/bench/soak.py" --gateway "$GATEWAY_BIN" --sim "$SIM_BIN" --out "$OUT" \
    --seconds "${SOAK_SECONDS:-3600}" --warmup "${WARMUP_SECONDS:-300}" --rate "${RATE:-10}" \
    --sample-interval "${SAMPLE_SECONDS:-30}" --restarts "${RESTARTS:-1000}" ${SOAK_TAG:+--tag "$SOAK_TAG"} &
helper=$!
status=0
wait "$helper" || status=$?
helper=""
exit "$status"
