#!/bin/bash
# Runs a real Home Assistant (homeassistant==2024.3.3 from PyPI, in a cached
# venv) against a real mosquitto on loopback and the real cast-gateway daemon,
# and checks what Home Assistant made of the gateway's MQTT discovery
# (Tests/homeassistant/ha_check.py, through HA's websocket API), with presets
# and a kiosk in the gateway's config, and how HA's frontend shows the device
# (headless Chromium, through Selenium). The update entity: installed and
# latest version (from a retained castgw/all/update announcement), and its
# Install reaching the gateway as `update latest` (the request file it writes).
#
#   Tests/homeassistant/run.sh [--keep] [--screenshot FILE]
#
# --keep keeps the temporary directory with every log and config;
# --screenshot FILE copies the fresh screenshot of the device page there
# (docs/ha-device-page.png is one).
# Environment: CAST_GATEWAY_CACHE (default /var/cache/cast-gateway) holds the
# venv; HA_BIN is the directory with cast-gateway and cast-receiver-sim
# (default: swift build --show-bin-path in this repository).
# The last line is "homeassistant: N passed, M failed"; the exit status is
# non-zero when a check failed or the setup did.
set -euo pipefail

# HA_VERSION, SELENIUM_VERSION, CACHE and VENV.
# shellcheck source=Tests/homeassistant/venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
# The integrations configuration.yaml sets up (and mqtt, from its config entry).
HA_DOMAINS="http api websocket_api config device_automation onboarding logger frontend mqtt"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
KEEP=false
SCREENSHOT_COPY=""
usage() { echo "usage: $0 [--keep] [--screenshot FILE]" >&2; echo "homeassistant: 0 passed, 1 failed"; exit 64; }
while [ $# -gt 0 ]; do
    case $1 in
        --keep) KEEP=true ;;
        --screenshot) [ $# -ge 2 ] || usage; SCREENSHOT_COPY=$2; shift ;;
        *) usage ;;
    esac
    shift
done

RUN_START=$(date +%s.%N)
WORK=""
BUILD=""   # a venv being built, removed if this script does not finish it
PASSED=0
FAILED=1   # until the checker says otherwise
PIDFILES=()   # in start order; stopped in reverse

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "homeassistant: $*"; }

# Prints the last lines of each log, for a failed run.
show_logs() {
    [ -n "$WORK" ] && [ -d "$WORK" ] || return 0
    local file
    for file in gateway.err ha/ha.log ha.err sim.out sim.err sim.jsonl mosquitto.err lircd.log chromedriver.log browser-console.log; do
        [ -s "$WORK/$file" ] || continue
        echo "----- last lines of $file -----"
        tail -n 40 "$WORK/$file"
    done
}

# Stops every process this script (or the checker, through the pid files it
# rewrites when it restarts the simulator) started, by pid; shows the logs
# when something failed; removes the temporary directory unless --keep; and
# prints the summary as the last line.
cleanup() {
    local status=$? i pid
    trap - EXIT INT TERM
    set +e
    # One at a time, the last started first (HA before the broker it uses).
    for ((i = ${#PIDFILES[@]} - 1; i >= 0; i--)); do
        pid=$(cat "${PIDFILES[i]}" 2>/dev/null)
        [ -n "$pid" ] || continue
        kill "$pid" 2>/dev/null
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    if [ "$status" -ne 0 ] || [ "$FAILED" -ne 0 ]; then show_logs; fi
    if [ -n "$BUILD" ]; then rm -rf "$BUILD"; fi
    if [ -n "$WORK" ]; then
        if $KEEP; then say "kept $WORK"; else rm -rf "$WORK"; fi
    fi
    say "total $(elapsed "$RUN_START") s"
    say "$PASSED passed, $FAILED failed"
    if [ "$FAILED" -ne 0 ] && [ "$status" -eq 0 ]; then status=1; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

setup_failed() { echo "homeassistant: setup failed: $*" >&2; exit 1; }

# wait_until SECONDS WHAT COMMAND...: polls COMMAND every 0.1 s until it succeeds.
wait_until() {
    local seconds=$1 what=$2 deadline
    shift 2
    deadline=$(awk -v s="$seconds" -v n="$(now)" 'BEGIN { printf "%.1f", n + s }')
    until "$@"; do
        if awk -v d="$deadline" -v n="$(now)" 'BEGIN { exit !(n > d) }'; then
            setup_failed "$what did not happen within $seconds s"
        fi
        sleep 0.1
    done
}

# start NAME COMMAND...: runs COMMAND in the background, output in WORK/NAME.out
# and .err, pid in WORK/NAME.pid (killed on exit).
start() {
    local name=$1
    shift
    "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" &
    echo $! > "$WORK/$name.pid"
    disown $!   # stopped by pid in cleanup; no "Killed" job notices
    PIDFILES+=("$WORK/$name.pid")
}
alive() { kill -0 "$(cat "$WORK/$1.pid")" 2>/dev/null; }

free_port() {
    /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port_open() { /usr/bin/python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$1" 2>/dev/null; }

[ "$(id -u)" -eq 0 ] || setup_failed "must run as root (lircd, mosquitto)"
for program in mosquitto mosquitto_sub mosquitto_pub lircd irsend /usr/bin/python3 /usr/bin/chromium /usr/bin/chromedriver; do
    command -v "$program" > /dev/null || setup_failed "$program is not installed (deploy/install-build-deps.sh installs it)"
done

# ---- the venv ---------------------------------------------------------------
venv_start=$(now)
mkdir -p "$CACHE"
# One run at a time looks at and builds the venvs: a second run waits for
# the first's build, then finds the venv ready.
exec {venv_lock}> "$CACHE/.ha-venv.lock"
flock "$venv_lock"
# The marker's first line names what was asked for (a change rebuilds the
# venv); the lines after it, what the integrations required.
want_marker="homeassistant==$HA_VERSION josepy<2 selenium==$SELENIUM_VERSION for: $HA_DOMAINS"
if [ -x "$VENV/bin/python" ] && [ "$(head -n 1 "$VENV/.installed" 2>/dev/null)" = "$want_marker" ]; then
    say "venv $VENV is ready"
else
    say "building $VENV (a few minutes, once)"
    # Under the lock no other run builds: a build directory left is a dead run's.
    rm -rf "$VENV" "$VENV".build.*
    build=$(mktemp -d "$VENV.build.XXXXXX")
    BUILD=$build
    /usr/bin/python3 -m venv "$build" || setup_failed "python3 -m venv failed (is python3-venv installed?)"
    # The venv is renamed once built, so only "python -m ..." is used in it
    # (the scripts in bin/ name the build path in their #! line).
    # One resolution for all three, so selenium's dependencies keep HA's pins.
    "$build/bin/python" -m pip install -q --disable-pip-version-check "homeassistant==$HA_VERSION" 'josepy<2' \
        "selenium==$SELENIUM_VERSION" || setup_failed "pip install homeassistant==$HA_VERSION selenium==$SELENIUM_VERSION failed"
    # What the integrations it loads need at run time (--skip-pip: HA installs
    # nothing itself): mqtt's manifest pins paho-mqtt, and HA's bootstrap
    # always sets up its default integrations (frontend among them: without
    # it HA starts in recovery mode, without mqtt).
    mqtt_requirement=$("$build/bin/python" -c \
        'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["requirements"]))' \
        "$build/lib/python3.11/site-packages/homeassistant/components/mqtt/manifest.json")
    mapfile -t requirements < <("$build/bin/python" "$HERE/requirements.py" $HA_DOMAINS 2> "$build/requirements.err")
    [ "${#requirements[@]}" -gt 0 ] || setup_failed "requirements.py found no requirements: $(cat "$build/requirements.err")"
    "$build/bin/python" -m pip install -q --disable-pip-version-check "${requirements[@]}" \
        || setup_failed "pip install ${requirements[*]} failed"
    { echo "$want_marker"; printf '%s\n' "${requirements[@]}"; } > "$build/.installed"
    mv "$build" "$VENV"
    BUILD=""
    say "venv built in $(elapsed "$venv_start") s (mqtt needs $mqtt_requirement)"
fi
exec {venv_lock}>&-
PY=$VENV/bin/python
say "phase venv: $(elapsed "$venv_start") s"

# ---- the binaries -----------------------------------------------------------
if [ -z "${HA_BIN:-}" ]; then
    HA_BIN=$(cd "$REPO" && swift build --show-bin-path) || setup_failed "swift build --show-bin-path failed"
fi
for program in cast-gateway cast-receiver-sim; do
    [ -x "$HA_BIN/$program" ] || setup_failed "no $HA_BIN/$program (build first, or set HA_BIN)"
done

WORK=$(mktemp -d /tmp/cast-gateway-ha.XXXXXX)
chmod 755 "$WORK"
setup_start=$(now)

# ---- mosquitto ----------------------------------------------------------------
MQTT_PORT=$(free_port)
cat > "$WORK/mosquitto.conf" <<EOF
listener $MQTT_PORT 127.0.0.1
allow_anonymous true
persistence false
log_dest stderr
log_type error
log_type warning
log_type notice
EOF
start mosquitto mosquitto -c "$WORK/mosquitto.conf"
wait_until 10 "mosquitto listening on $MQTT_PORT" port_open "$MQTT_PORT"

# ---- the receiver simulator ---------------------------------------------------
SIM_PORT=$(free_port)
SIM_NAME="HA Test TV"
SIM_CMD=("$HA_BIN/cast-receiver-sim" --port "$SIM_PORT" --name "$SIM_NAME" --log "$WORK/sim.jsonl")
start sim "${SIM_CMD[@]}"
wait_until 10 "the simulator listening on $SIM_PORT" grep -q '^listening' "$WORK/sim.out"

# ---- lircd ----------------------------------------------------------------------
LIRC_SOCKET=$WORK/lircd.sock
start lircd lircd --nodaemon --driver=file --device=/dev/null --allow-simulate --output="$LIRC_SOCKET" \
    --pidfile="$WORK/lircd.pidfile" --logfile="$WORK/lircd.log" /etc/lirc/lircd.conf.d/devinput.lircd.conf
wait_until 10 "lircd's socket $LIRC_SOCKET" test -S "$LIRC_SOCKET"

# ---- the gateway ----------------------------------------------------------------
# The kiosk waits (start = never) until HA's Play select picks one of its items;
# the checker rewrites the playlist for 'playlist reload'.
cat > "$WORK/room.m3u" <<EOF
#EXTM3U
#EXTINF:-1,Welcome to the Grand Hotel
http://media.test/welcome.mp4
http://media.test/spa.mp4
EOF
mkdir -p "$WORK/kiosk-state"
cat > "$WORK/gateway.conf" <<EOF
[device]
host = 127.0.0.1:$SIM_PORT

[console]
device = none

[lirc]
socket = $LIRC_SOCKET

[log]
level = info

[presets]
1 = http://media.test/one.mp4 | First Channel
2 = http://media.test/two.mp4

[kiosk]
playlist = $WORK/room.m3u
start = never
state-directory = $WORK/kiosk-state

[mqtt]
broker = mqtt://127.0.0.1:$MQTT_PORT
room = room-1.01
area = Lobby

# A/B updates from the fleet: the request file is what the checker reads
# (the root side, deploy/rauc/install-request, is Tests/deploy/bundle.sh's).
[update]
from-fleet = yes
request = $WORK/update-request
progress = $WORK/update-progress/progress
EOF
mkdir -p "$WORK/update-progress"
# The fleet's announcement, retained, as deploy/rollout publishes it: HA's
# update entity shows its version as the latest.
UPDATE_VERSION=9.9.9
UPDATE_URL=http://127.0.0.1:9/cast-gateway-qemu-arm64-$UPDATE_VERSION.raucb
UPDATE_SHA=$(printf '%s' "$UPDATE_URL" | sha256sum | cut -d' ' -f1)
mosquitto_pub -h 127.0.0.1 -p "$MQTT_PORT" -q 1 -r -t castgw/all/update \
    -m "{\"version\":\"$UPDATE_VERSION\",\"url\":\"$UPDATE_URL\",\"sha256\":\"$UPDATE_SHA\"}"
# mDNS discovery off: the gateway's avahi client finds no system bus, so no
# avahi-daemon on this host browses beyond loopback for the test.
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$WORK/no-system-bus \
    start gateway "$HA_BIN/cast-gateway" run --config "$WORK/gateway.conf"
ln -s gateway.err "$WORK/gateway.log"
availability() { mosquitto_sub -h 127.0.0.1 -p "$MQTT_PORT" -t castgw/room-1.01/availability -C 1 -W 2 2>/dev/null; }
gateway_online() { alive gateway || setup_failed "the gateway exited"; [ "$(availability)" = online ]; }
wait_until 20 "the gateway online on MQTT" gateway_online

# ---- Home Assistant ---------------------------------------------------------------
HA_PORT=$(free_port)
HA_DIR=$WORK/ha
mkdir -p "$HA_DIR/.storage"
cat > "$HA_DIR/configuration.yaml" <<EOF
homeassistant:
  name: cast-gateway test
  latitude: 0
  longitude: 0
  elevation: 0
  unit_system: metric
  time_zone: UTC
  country: CH
  currency: CHF
http:
  server_host: 127.0.0.1
  server_port: $HA_PORT
api:
websocket_api:
config:
device_automation:
onboarding:
frontend:
logger:
  default: warning
EOF
"$PY" "$HERE/ha_check.py" write-storage --dir "$HA_DIR" --mqtt-port "$MQTT_PORT"
ha_start=$(now)
start ha "$PY" -m homeassistant --config "$HA_DIR" --skip-pip --log-file "$HA_DIR/ha.log"
"$PY" "$HERE/ha_check.py" onboard --url "http://127.0.0.1:$HA_PORT" --token-file "$WORK/token" --auth-file "$WORK/auth.json" \
    --ha-pid "$(cat "$WORK/ha.pid")" --ha-log "$HA_DIR/ha.log" --timeout 90 || setup_failed "Home Assistant did not come up"
say "phase HA start: $(elapsed "$ha_start") s (setup before it: $(awk -v a="$setup_start" -v b="$ha_start" 'BEGIN { printf "%.1f", b - a }') s)"

# ---- the checks ----------------------------------------------------------------------
checks_start=$(now)
set +e
"$PY" "$HERE/ha_check.py" check --url "http://127.0.0.1:$HA_PORT" --token-file "$WORK/token" \
    --room room-1.01 --mqtt-port "$MQTT_PORT" --lirc-socket "$LIRC_SOCKET" \
    --sim-log "$WORK/sim.jsonl" --sim-name "$SIM_NAME" --sim-pidfile "$WORK/sim.pid" \
    --sim-out "$WORK/sim.out" --sim-err "$WORK/sim.err" \
    --gateway-pidfile "$WORK/gateway.pid" --ha-log "$HA_DIR/ha.log" \
    --playlist "$WORK/room.m3u" --update-request "$WORK/update-request" \
    --update-announced "$UPDATE_VERSION $UPDATE_URL $UPDATE_SHA" --auth-file "$WORK/auth.json" --screenshot "$WORK/ha-device-page.png" \
    --browser-dir "$WORK/chromium" --browser-log "$WORK/chromedriver.log" --browser-console "$WORK/browser-console.log" \
    -- "${SIM_CMD[@]}" | tee "$WORK/checks.out"
check_status=${PIPESTATUS[0]}
set -e
say "phase checks: $(elapsed "$checks_start") s"
# The checker ends with "checks: N passed, M failed".
summary=$(tail -n 1 "$WORK/checks.out")
if [[ $summary =~ ^checks:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    PASSED=${BASH_REMATCH[1]}
    FAILED=${BASH_REMATCH[2]}
else
    setup_failed "the checker ended without its summary (status $check_status)"
fi
[ "$FAILED" -ne 0 ] || [ "$check_status" -eq 0 ] || { PASSED=0; FAILED=1; setup_failed "the checker exited with $check_status"; }
# Only a screenshot of a run that passed is worth keeping.
if [ -n "$SCREENSHOT_COPY" ] && [ "$FAILED" -eq 0 ]; then
    [ -s "$WORK/ha-device-page.png" ] || setup_failed "no screenshot to copy to $SCREENSHOT_COPY"
    cp "$WORK/ha-device-page.png" "$SCREENSHOT_COPY"
    say "screenshot copied to $SCREENSHOT_COPY"
elif [ -n "$SCREENSHOT_COPY" ]; then
    say "screenshot not copied to $SCREENSHOT_COPY: checks failed"
fi
