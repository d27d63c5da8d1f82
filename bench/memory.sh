#!/usr/bin/env bash
# The daemon's memory per configuration (issue 22, "measure what is honest"):
# RSS, PSS, private and shared memory from /proc/PID/smaps_rollup once the
# daemon is connected to cast-receiver-sim and what the configuration starts
# is running, plus the peak RSS (ru_maxrss, the VmHWM at exit) of
# `--version`, of a one-shot `cast` and of pychromecast's scenario
# (bench/pychromecast_scenario.py) against the same simulator in the same run.
# Prints one Markdown table and keeps it in build/bench/memory.md; the
# minimal configuration's RSS per mapping (bench/rss-map.sh) goes to
# build/bench/memory-minimal-map.md.
#
#   bench/memory.sh                      builds the release binaries (static Swift runtime)
#   BIN_DIR=DIR bench/memory.sh          uses DIR/cast-gateway and DIR/cast-receiver-sim
#   MEMORY_DIR=DIR bench/memory.sh       where the stripped copies run from (ext4; default /var/tmp)
#
# The binaries are copied and stripped into a directory on ext4 and synced
# first: pages of a freshly written file that is still dirty in the page
# cache count as private dirty. Everything runs on loopback; every process
# started here is stopped by its pid on exit.
set -euo pipefail
usage() {
    cat <<'USAGE'
usage: bench/memory.sh
  BIN_DIR=DIR     take cast-gateway and cast-receiver-sim from DIR instead of building them
  MEMORY_DIR=DIR  an ext4 directory to run the stripped copies from (default /var/tmp)
  PYCHROMECAST_VENV=DIR  a venv with pychromecast 14.0.10 (default .build/pychromecast-14.0.10-venv)
Results go to build/bench/memory.md and build/bench/memory-minimal-map.md.
USAGE
}
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    "") ;;
    *) usage >&2; exit 64 ;;
esac
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/bench
mkdir -p "$OUT"
cd "$REPO"

if [ -z "${BIN_DIR:-}" ]; then
    swift build -c release --static-swift-stdlib --product cast-gateway >/dev/null
    swift build -c release --static-swift-stdlib --product cast-receiver-sim >/dev/null
    BIN_DIR=$(swift build -c release --show-bin-path)
fi
MEMORY_DIR=${MEMORY_DIR:-/var/tmp}
fstype=$(findmnt -n -o FSTYPE -T "$MEMORY_DIR")
if [ "$fstype" != ext4 ]; then
    echo "memory: $MEMORY_DIR is on $fstype, not ext4; set MEMORY_DIR to a directory on ext4" >&2
    exit 1
fi
WORK=$(mktemp -d "$MEMORY_DIR/cast-gateway-memory.XXXXXX")

pids=()
daemon=
cleanup() {
    local pid
    for pid in $daemon "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

for tool in cast-gateway cast-receiver-sim; do
    cp "$BIN_DIR/$tool" "$WORK/$tool" && strip "$WORK/$tool"
done
sync
GATEWAY=$WORK/cast-gateway

# Polls a command until it succeeds: $1 seconds at most, then fails naming $2.
until_true() {
    local timeout=$1 what=$2 deadline
    shift 2
    deadline=$((SECONDS + timeout))
    until "$@"; do
        if [ "$SECONDS" -ge "$deadline" ]; then echo "memory: timed out waiting for $what" >&2; return 1; fi
        sleep 0.1
    done
}
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# A receiver of its own (each one-shot sender gets a fresh one): sets PORT.
sims=0
start_sim() {
    sims=$((sims + 1))
    local out=$WORK/sim-$sims.out
    "$WORK/cast-receiver-sim" --port 0 --log-level warning >"$out" 2>&1 &
    pids+=("$!")
    until_true 10 "cast-receiver-sim listening" grep -qs '^listening ' "$out"
    PORT=$(awk '/^listening / { print $3; exit }' "$out")
}
start_sim
DEVICE=127.0.0.1:$PORT

# lircd with no IR hardware (--driver=file), as bench/run.sh runs it.
lircd --nodaemon --driver=file --device=/dev/null --allow-simulate --output="$WORK/lircd.sock" \
    --pidfile="$WORK/lircd.pid" --logfile="$WORK/lircd.log" /etc/lirc/lircd.conf.d/devinput.lircd.conf &
pids+=("$!")
until_true 10 "lircd's socket" test -S "$WORK/lircd.sock"

# A console on a pty: this holds the master and copies what the daemon writes to a file.
python3 -u -c '
import os, pty, sys
master, slave = pty.openpty()
print(os.ttyname(slave), flush=True)
with open(sys.argv[1], "ab", buffering=0) as out:
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        out.write(data)
' "$WORK/console.out" >"$WORK/pty.name" &
pids+=("$!")
until_true 10 "the pty" test -s "$WORK/pty.name"
TTY=$(cat "$WORK/pty.name")

# A broker on loopback.
MQTT_PORT=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$MQTT_PORT" >"$WORK/mosquitto.conf"
mosquitto -c "$WORK/mosquitto.conf" >"$WORK/mosquitto.log" 2>&1 &
pids+=("$!")
until_true 10 "mosquitto on port $MQTT_PORT" listening "$MQTT_PORT"

# The web interface's password, media root and kiosk playlist.
printf '%s\n' 'bench password 22' | "$GATEWAY" web-password "$WORK/web-password" >/dev/null
mkdir -p "$WORK/media" "$WORK/state"
printf '#EXTM3U\nhttp://media.test/bench.mp4\n' >"$WORK/room.m3u"

device="[device]
host = $DEVICE
"
no_console="[console]
device = none
"
ir_console="[lirc]
socket = $WORK/lircd.sock
[console]
device = $TTY
"
cec="[cec]
"
kiosk_media="[kiosk]
playlist = $WORK/room.m3u
start = boot
state-directory = $WORK/state
[media]
roots = $WORK/media
port = 0
"
mqtt="[mqtt]
broker = mqtt://127.0.0.1:$MQTT_PORT
room = bench
"
web="[web]
listen = 127.0.0.1:0
password-file = $WORK/web-password
"

# The optional libraries a process maps (of those the daemon loads with dlopen, and GnuTLS).
optional_mapped() {
    awk '$6 ~ /^\// { n = $6; sub(/.*\//, "", n); sub(/\.so.*/, "", n); print n }' "/proc/$1/maps" |
        { grep -E '^lib(cec|microhttpd|gnutls|mosquitto|avahi-client)$' || true; } | sort -u | paste -sd, - | sed 's/,/, /g'
}
mapped() { grep -q "/$2[.-]" "/proc/$1/maps"; }
logged() { grep -q -- "$2" "$1"; }
# The daemon's status line goes to the console when it has one, else to its output.
status_line() { grep -q '\* \(IDLE\|PLAYING\|BUFFERING\|PAUSED\)' "$1" "$WORK/console.out" 2>/dev/null; }
# Ready when RSS has not changed for 5 polls in a row (0.2 s apart): start-up work is done.
rss_of() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
settled() {
    local pid=$1 last now same=0 deadline=$((SECONDS + 20))
    last=$(rss_of "$pid")
    while [ "$same" -lt 5 ] && [ "$SECONDS" -lt "$deadline" ]; do
        sleep 0.2
        now=$(rss_of "$pid")
        if [ "$now" = "$last" ]; then same=$((same + 1)); else same=0; last=$now; fi
    done
}
rollup() { awk -v f="$2" '$1 == f ":" { print $2 }' "/proc/$1/smaps_rollup"; }
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
kb() { awk -v k="$1" 'BEGIN { printf "%.1f MB (%d kB)", k / 1024, k }'; }

rows=()
# measure NAME CONFIG CONDITION...: runs the daemon, waits for its status line and
# for each condition ("log:TEXT" in its output, "console:TEXT" on the pty, "lib:NAME"
# mapped), then until RSS settles.
measure() {
    local name=$1 config=$2 conf log pid condition libs
    shift 2
    conf=$WORK/$name.conf
    log=$WORK/$name.log
    printf '%s' "$config" >"$conf"
    : >"$WORK/console.out"
    "$GATEWAY" run --config "$conf" >"$log" 2>&1 &
    pid=$!
    daemon=$pid
    until_true 30 "$name: a status line" status_line "$log"
    for condition in "$@"; do
        case $condition in
            log:*) until_true 30 "$name: '${condition#log:}' in the log" logged "$log" "${condition#log:}" ;;
            console:*) until_true 30 "$name: '${condition#console:}' on the console" logged "$WORK/console.out" "${condition#console:}" ;;
            lib:*) until_true 30 "$name: ${condition#lib:} mapped" mapped "$pid" "${condition#lib:}" ;;
        esac
    done
    settled "$pid"
    if [ "$name" = minimal ]; then bench/rss-map.sh "$pid" >"$OUT/memory-minimal-map.md"; fi
    libs=$(optional_mapped "$pid")
    local rss pss private shared
    rss=$(rollup "$pid" Rss)
    pss=$(rollup "$pid" Pss)
    private=$(( $(rollup "$pid" Private_Clean) + $(rollup "$pid" Private_Dirty) ))
    shared=$(( $(rollup "$pid" Shared_Clean) + $(rollup "$pid" Shared_Dirty) ))
    rows+=("| $name | ${libs:-none} | $(kb "$rss") | $(kb "$pss") | $(kb "$private") (dirty $(rollup "$pid" Private_Dirty) kB) | $(kb "$shared") | $(kb "$(hwm "$pid")") |")
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    daemon=
}

measure minimal "$device$no_console"
measure "IR + console" "$device$ir_console" "console:cast-gateway> "
measure CEC "$device$no_console$cec" lib:libcec
measure "kiosk + media" "$device$no_console$kiosk_media" "log:serving " "log:* PLAYING" lib:libmicrohttpd
measure MQTT "$device$no_console$mqtt" "log:connected to mqtt://" lib:libmosquitto
measure web "$device$no_console$web" lib:libmicrohttpd
measure everything "$device$ir_console$cec$kiosk_media$mqtt$web" "console:cast-gateway> " "log:serving " "log:connected to mqtt://" lib:libcec lib:libmicrohttpd lib:libmosquitto

# Peak RSS of a whole process: GNU time's %M is the child's ru_maxrss. Empty
# when the process fails (its output is in build/bench/memory-peaks.log).
: >"$OUT/memory-peaks.log"
peak() {
    if /usr/bin/time -f 'peak_kb=%M' -o "$WORK/peak" "$@" >>"$OUT/memory-peaks.log" 2>&1; then
        sed -n 's/^peak_kb=//p' "$WORK/peak"
    else
        echo "memory: failed: $*" | tee -a "$OUT/memory-peaks.log" >&2
    fi
}
peak_kb() { if [ -n "$1" ]; then kb "$1"; else echo "failed (build/bench/memory-peaks.log)"; fi; }
version_peak=$(peak "$GATEWAY" --version)
VENV=${PYCHROMECAST_VENV:-$REPO/.build/pychromecast-14.0.10-venv}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet pychromecast==14.0.10
fi
# Each against a fresh receiver (pychromecast's scenario waits for PLAYING with
# no timeout, hence timeout(1): its peak is counted in the child's ru_maxrss).
start_sim
cast_peak=$(peak timeout 60 "$GATEWAY" cast http://media.test/bench.mp4 --device "127.0.0.1:$PORT")
start_sim
theirs_peak=$(peak timeout 60 "$VENV/bin/python" bench/pychromecast_scenario.py "$PORT")

{
    echo "| configuration | optional libraries mapped | RSS | PSS | private (clean + dirty) | shared | peak RSS (VmHWM) |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo "| \`--version\` | — | — | — | — | — | $(peak_kb "$version_peak") |"
    echo "| one-shot \`cast\` (connect, launch, load) | — | — | — | — | — | $(peak_kb "$cast_peak") |"
    echo "| pychromecast 14.0.10, bench/pychromecast_scenario.py (connect, launch, load, pause) | — | — | — | — | — | $(peak_kb "$theirs_peak") |"
    echo
    if [ -n "$cast_peak" ] && [ -n "$theirs_peak" ]; then
        echo "one-shot cast / pychromecast peak: $(awk -v a="$cast_peak" -v b="$theirs_peak" 'BEGIN { printf "%.2f", a / b }')"
    fi
    echo "machine: $(nproc) cores, $(uname -m), $(swift --version 2>/dev/null | head -1); commit $(git rev-parse --short HEAD); $(date -u +%Y-%m-%d)"
} | tee "$OUT/memory.md"
