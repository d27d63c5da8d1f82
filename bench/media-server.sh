#!/usr/bin/env bash
# Serves the same file with the media server (libmicrohttpd, in the small
# `cast-gateway-bench serve` host process) and with lighttpd, both on
# loopback in the same run, and measures with curl:
#   - throughput of one stream (whole file),
#   - aggregate throughput of 8 concurrent range readers (an eighth each),
#   - time to first byte of a 64 KiB range request (median of N),
#   - RSS the serving adds: for the media server, the host process's peak
#     (VmHWM) minus its RSS before the server started; for lighttpd, its
#     peak minus its RSS when idle after start.
# Prints a Markdown table and keeps it in build/bench/media-server.md.
#
#   bench/media-server.sh [--help]
#   FILE_MB=128 RUNS=5 TTFB_REQUESTS=50 bench/media-server.sh   (the defaults)
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/bench
FILE_MB=${FILE_MB:-128}
RUNS=${RUNS:-5}
TTFB_REQUESTS=${TTFB_REQUESTS:-50}
READERS=8
mkdir -p "$OUT"
cd "$REPO"
for tool in curl lighttpd; do
    command -v "$tool" >/dev/null || { echo "media-server.sh: $tool is needed (apt-get install $tool)" >&2; exit 1; }
done

swift build -c release --static-swift-stdlib --product cast-gateway-bench >/dev/null
BIN=$(swift build -c release --show-bin-path)
cp "$BIN/cast-gateway-bench" "$OUT/cast-gateway-bench" && strip "$OUT/cast-gateway-bench"

WORK=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/media"
head -c "$((FILE_MB * 1024 * 1024))" /dev/urandom > "$WORK/media/movie.mp4"
SIZE=$(stat -c %s "$WORK/media/movie.mp4")
cat "$WORK/media/movie.mp4" > /dev/null   # in the page cache for both servers

rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
hwm() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status"; }
anon() { awk '/^RssAnon:/ {print $2}' "/proc/$1/status"; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# lighttpd: one process, no access log, sendfile on (its default).
LPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$WORK/lighttpd.conf" <<CONF
server.document-root = "$WORK/media"
server.bind = "127.0.0.1"
server.port = $LPORT
server.errorlog = "$WORK/lighttpd-error.log"
mimetype.assign = (".mp4" => "video/mp4")
CONF
lighttpd -D -f "$WORK/lighttpd.conf" &
LIGHTTPD=$!
pids+=("$LIGHTTPD")

coproc OURS { exec "$OUT/cast-gateway-bench" serve --root "$WORK/media"; }
OURS_PID=$OURS_PID
pids+=("$OURS_PID")
read -r before_line <&"${OURS[0]}"
read -r _ _ MPORT <&"${OURS[0]}"
ours_before_kb=$(sed -n 's/.*rss_before_kb=\([0-9]*\).*/\1/p' <<<"$before_line")
ours_anon_before_kb=$(sed -n 's/.*anon_before_kb=\([0-9]*\).*/\1/p' <<<"$before_line")
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$LPORT/movie.mp4" -r 0-0 && break; sleep 0.05; done
lighttpd_before_kb=$(rss "$LIGHTTPD")
lighttpd_anon_before_kb=$(anon "$LIGHTTPD")

one_stream() { curl -s -o /dev/null -w '%{size_download} %{time_total}\n' "$1" | awk '{ printf "%.0f\n", $1 / $2 / 1048576 }'; }
eight_readers() {
    local start end chunk=$((SIZE / READERS)) readers=()
    start=$(date +%s.%N)
    for i in $(seq 0 $((READERS - 1))); do
        local from=$((i * chunk)) to=$(((i + 1) * chunk - 1))
        [ "$i" -eq $((READERS - 1)) ] && to=$((SIZE - 1))
        curl -s -o /dev/null -r "$from-$to" "$1" &
        readers+=("$!")
    done
    wait "${readers[@]}"
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" -v b="$SIZE" 'BEGIN { printf "%.0f\n", b / (e - s) / 1048576 }'
}
ttfb() { curl -s -o /dev/null -r 0-65535 -w '%{time_starttransfer}\n' "$1" | awk '{ printf "%.3f\n", $1 * 1000 }'; }

# Interleaved, so that both servers see the same load from the rest of the machine.
# The media server's URLs start with its per-boot token: the kernel's boot id without dashes.
TOKEN=$(tr -d '-' < /proc/sys/kernel/random/boot_id)
OURS_URL="http://127.0.0.1:$MPORT/$TOKEN/0/movie.mp4"
LIGHTTPD_URL="http://127.0.0.1:$LPORT/movie.mp4"
o_one=() l1=() o_eight=() l8=() o_ttfb=() lt=()
for _ in $(seq "$RUNS"); do
    o_one+=("$(one_stream "$OURS_URL")"); l1+=("$(one_stream "$LIGHTTPD_URL")")
    o_eight+=("$(eight_readers "$OURS_URL")"); l8+=("$(eight_readers "$LIGHTTPD_URL")")
done
for _ in $(seq "$TTFB_REQUESTS"); do
    o_ttfb+=("$(ttfb "$OURS_URL")"); lt+=("$(ttfb "$LIGHTTPD_URL")")
done
med() { printf '%s\n' "$@" | median; }
ours_one=$(med "${o_one[@]}"); l_one=$(med "${l1[@]}")
ours_eight=$(med "${o_eight[@]}"); l_eight=$(med "${l8[@]}")
ours_ttfb=$(med "${o_ttfb[@]}"); l_ttfb=$(med "${lt[@]}")
ours_peak_kb=$(hwm "$OURS_PID")
ours_after_kb=$(rss "$OURS_PID")
ours_anon_after_kb=$(anon "$OURS_PID")
lighttpd_peak_kb=$(hwm "$LIGHTTPD")
lighttpd_anon_after_kb=$(anon "$LIGHTTPD")
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f%%", a / b * 100 }'; }
{
    echo "| measure (${FILE_MB} MiB file, loopback, median of $RUNS; TTFB median of $TTFB_REQUESTS) | media server (libmicrohttpd $(pkg-config --modversion libmicrohttpd)) | lighttpd $(lighttpd -v 2>/dev/null | sed -n 's/^lighttpd\/\([^ ]*\).*/\1/p') | media server / lighttpd |"
    echo "|---|---|---|---|"
    echo "| one stream, whole file | $ours_one MiB/s | $l_one MiB/s | $(pct "$ours_one" "$l_one") |"
    echo "| $READERS concurrent range readers, aggregate | $ours_eight MiB/s | $l_eight MiB/s | $(pct "$ours_eight" "$l_eight") |"
    echo "| time to first byte, 64 KiB range | $ours_ttfb ms | $l_ttfb ms | — |"
    echo "| RSS added by serving (peak − before) | $((ours_peak_kb - ours_before_kb)) kB ($ours_before_kb → peak $ours_peak_kb kB, $ours_after_kb kB after) | $((lighttpd_peak_kb - lighttpd_before_kb)) kB ($lighttpd_before_kb → peak $lighttpd_peak_kb kB) | — |"
    echo "| of which anonymous (heap, stacks; after − before) | $((ours_anon_after_kb - ours_anon_before_kb)) kB | $((lighttpd_anon_after_kb - lighttpd_anon_before_kb)) kB | — |"
} | tee "$OUT/media-server.md"
echo "machine: $(nproc) cores, $(uname -m), $(swift --version 2>/dev/null | head -1)" | tee -a "$OUT/media-server.md"
