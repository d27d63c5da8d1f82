#!/usr/bin/env bash
# Measures cast-gateway (release, static Swift stdlib, stripped) against the
# receiver simulator on loopback, and pychromecast on the same scenario.
# Prints a Markdown table and keeps it in build/bench/results.md, then runs
# bench/memory.sh (memory per configuration, build/bench/memory.md).
#
#   bench/run.sh            (IDLE_SECONDS=600 by default: RSS after 10 minutes idle)
#   IDLE_SECONDS=60 bench/run.sh
#   bench/run.sh json       (only the JSON parse case: an object against an array of the same size)
set -euo pipefail
usage() {
    cat <<'USAGE'
usage: bench/run.sh [json]
  (no argument)  every measurement; IDLE_SECONDS (600), STARTS (20), COMMANDS (10000) tune it
  json           only the parse time of a 7,800-member JSON object against a 7,800-element array
Results go to build/bench/results.md (json: build/bench/json.md).
USAGE
}
MODE=all
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    json) MODE=json ;;
    "") ;;
    *) usage >&2; exit 64 ;;
esac
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/bench
IDLE_SECONDS=${IDLE_SECONDS:-600}
STARTS=${STARTS:-20}
COMMANDS=${COMMANDS:-10000}
mkdir -p "$OUT"
cd "$REPO"

json_row() {
    local json
    json=$("$1" json --members 7800 --count 50)
    echo "| JSON parse, median of $(field runs "$json"): $(field members "$json")-member object ($(field object_bytes "$json") bytes) / array of as many strings | $(field object_us "$json") µs / $(field array_us "$json") µs | — |"
}
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$2"; }

if [ "$MODE" = json ]; then
    swift build -c release --static-swift-stdlib --product cast-gateway-bench >/dev/null
    BIN=$(swift build -c release --show-bin-path)
    {
        echo "| measure | cast-gateway | pychromecast 14.0.10 |"
        echo "|---|---|---|"
        json_row "$BIN/cast-gateway-bench"
    } | tee "$OUT/json.md"
    exit 0
fi

swift build -c release --static-swift-stdlib --product cast-gateway >/dev/null
swift build -c release --static-swift-stdlib --product cast-receiver-sim >/dev/null
swift build -c release --static-swift-stdlib --product cast-gateway-bench >/dev/null
BIN=$(swift build -c release --show-bin-path)
for tool in cast-gateway cast-receiver-sim cast-gateway-bench; do
    cp "$BIN/$tool" "$OUT/$tool" && strip "$OUT/$tool"
done

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

coproc SIM { exec "$OUT/cast-receiver-sim" --port 0 --log-level warning; }
pids+=("$SIM_PID")
read -r _ _ PORT _ <&"${SIM[0]}"
DEVICE=127.0.0.1:$PORT
echo "bench: simulator on $DEVICE" >&2

latency=$("$OUT/cast-gateway-bench" latency --device "$DEVICE" --count "$COMMANDS")

# IR key -> Cast frame, through a real lircd (no IR hardware: --driver=file).
LIRCD_DIR=$(mktemp -d)
lircd --nodaemon --driver=file --device=/dev/null --allow-simulate --output="$LIRCD_DIR/lircd.sock" \
    --pidfile="$LIRCD_DIR/lircd.pid" --logfile="$LIRCD_DIR/lircd.log" /etc/lirc/lircd.conf.d/devinput.lircd.conf &
pids+=("$!")
while [ ! -S "$LIRCD_DIR/lircd.sock" ]; do sleep 0.05; done
input=$("$OUT/cast-gateway-bench" input-latency --device "$DEVICE" --lircd-socket "$LIRCD_DIR/lircd.sock" --count "$COMMANDS")
ours=$("$OUT/cast-gateway-bench" scenario --device "$DEVICE")

VENV=${PYCHROMECAST_VENV:-$REPO/.build/pychromecast-14.0.10-venv}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet pychromecast==14.0.10
fi
theirs=$("$VENV/bin/python" bench/pychromecast_scenario.py "$PORT")

# Process start -> connected with the receiver status (the daemon's first "* IDLE" line).
cat > "$OUT/gateway.conf" <<CONF
[device]
host = $DEVICE
CONF
startup=$(python3 - "$OUT/cast-gateway" "$OUT/gateway.conf" "$STARTS" <<'PY'
import subprocess, sys, time, statistics
binary, config, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
samples = []
for _ in range(runs):
    start = time.monotonic()
    process = subprocess.Popen([binary, "run", "--config", config], stderr=subprocess.PIPE, text=True)
    for line in process.stderr:
        if "* IDLE" in line or "* READY" in line or "* PLAYING" in line or "* PAUSED" in line:
            samples.append((time.monotonic() - start) * 1000)
            break
    process.terminate()
    process.wait()
samples.sort()
print(f"startup runs={len(samples)} p50_ms={statistics.median(samples):.1f} max_ms={samples[-1]:.1f}")
PY
)

# The daemon following a playing session: RSS now, CPU while idle, RSS after IDLE_SECONDS.
"$OUT/cast-gateway" cast http://media.test/bench.mp4 --device "$DEVICE" >/dev/null
"$OUT/cast-gateway" run --config "$OUT/gateway.conf" 2>/dev/null &
DAEMON=$!
pids+=("$DAEMON")
sleep 2
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# Private anonymous memory (heap, stacks): what the process itself allocated.
anon() { awk '/^Pss_Anon:/ {print $2}' "/proc/$1/smaps_rollup"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_start=$(rss "$DAEMON")
anon_start=$(anon "$DAEMON")
ticks_before=$(cpu_ticks "$DAEMON")
sleep 60
ticks_after=$(cpu_ticks "$DAEMON")
idle_cpu_ms=$(( (ticks_after - ticks_before) * 1000 / $(getconf CLK_TCK) ))
if [ "$IDLE_SECONDS" -gt 60 ]; then sleep $((IDLE_SECONDS - 60)); fi
rss_idle=$(rss "$DAEMON")
anon_idle=$(anon "$DAEMON")

discovery=$(python3 bench/discovery.py "$OUT" 5)
ms() { awk -v s="$1" 'BEGIN { printf "%.1f ms", s * 1000 }'; }
size_kb() { echo $(( $(stat -c %s "$1") / 1024 )); }
{
    echo "| measure | cast-gateway | pychromecast 14.0.10 |"
    echo "|---|---|---|"
    echo "| command issued → frame written, p50 / p99 ($(field commands "$latency") commands) | $(field p50_us "$latency") µs / $(field p99_us "$latency") µs | — |"
    echo "| lircd line read → Cast frame written, p50 / p99 ($(field events "$input") IR events) | $(field p50_us "$input") µs / $(field p99_us "$input") µs | — |"
    echo "| process start → connected + receiver status, median / max of $STARTS | $(field p50_ms "$startup") ms / $(field max_ms "$startup") ms | — |"
    echo "| connect + launch + load + pause, wall time | $(ms "$(field seconds "$ours")") | $(ms "$(field seconds "$theirs")") |"
    echo "| RSS after that scenario | $(( $(field rss_kb "$ours") / 1024 )) MB ($(field rss_kb "$ours") kB) | $(( $(field rss_kb "$theirs") / 1024 )) MB ($(field rss_kb "$theirs") kB) |"
    echo "| daemon RSS following a playing session, at start / after ${IDLE_SECONDS} s idle | ${rss_start} kB / ${rss_idle} kB | — |"
    echo "| of which private anonymous memory (heap, stacks), at start / after ${IDLE_SECONDS} s | ${anon_start} kB / ${anon_idle} kB | — |"
    echo "| daemon CPU time while idle for 60 s | ${idle_cpu_ms} ms | — |"
    echo "| mDNS publish → connected / re-publish on a new port → reconnected (median of 5) | $(field publish_to_connected_median_ms "$discovery") ms / $(field republish_to_reconnected_median_ms "$discovery") ms | — |"
    json_row "$OUT/cast-gateway-bench"
    echo "| stripped binaries (static Swift stdlib) | cast-gateway $(size_kb "$OUT/cast-gateway") kB, cast-receiver-sim $(size_kb "$OUT/cast-receiver-sim") kB | — |"
} | tee "$OUT/results.md"
echo "machine: $(nproc) cores, $(uname -m), $(swift --version 2>/dev/null | head -1)" | tee -a "$OUT/results.md"

# RSS, PSS and private memory per configuration, and the one-shot cast's peak
# against pychromecast's: bench/memory.sh (build/bench/memory.md).
BIN_DIR="$BIN" PYCHROMECAST_VENV="$VENV" bench/memory.sh
