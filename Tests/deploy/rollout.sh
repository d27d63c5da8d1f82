#!/usr/bin/env bash
# deploy/rollout over MQTT against a real mosquitto on 127.0.0.1 and three
# real gateways (rooms r1, r2, r3), with the box's root side played at its
# seam: the request file the gateway writes and the files it reads back.
#
#   Tests/deploy/rollout.sh [--keep]
#
# Real: deploy/rollout, mosquitto_pub/sub, the broker, the gateways (their
# `update URL SHA256` command, request file, progress following with
# inotify, MQTT state), and what rollout reads from that state.
# Simulated (a shell function per room, "the root helper"): it waits for the
# gateway's request file, takes it, writes the progress install-request
# would write (downloading, installing, installed), then "reboots": stops the
# gateway by pid, writes the release file and commit-slot's report as the
# new slot would have them, and starts the gateway again. install-request
# and commit-slot themselves run for real in Tests/deploy/bundle.sh, the
# reboot into the new slot in Tests/deploy/update-boot.sh.
#
# Cases: all three rooms updated (canary, then a batch of two) and the
# announcement published retained; a canary whose download fails stops the
# rollout before the others get a request; a batch member that falls back
# (U-Boot went back) stops it with the canary updated; usage errors; and
# the ssh mode's waves against fake boxes (an ssh that answers from files).
# Last line: `rollout: N passed, M failed`. Needs mosquitto,
# mosquitto-clients, jq, python3 and a built cast-gateway (swift build, or
# ROLLOUT_BIN=DIR).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
KEEP=0
case ${1:-} in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --keep) KEEP=1 ;;
    "") ;;
    *) echo "rollout-test: unknown argument '$1' (try --help)" >&2; exit 64 ;;
esac
for tool in mosquitto:mosquitto mosquitto_pub:mosquitto-clients mosquitto_sub:mosquitto-clients jq:jq python3:python3; do
    command -v "${tool%%:*}" >/dev/null || { echo "rollout-test: ${tool%%:*} not installed: apt-get install ${tool#*:}" >&2; exit 1; }
done
BIN=${ROLLOUT_BIN:-$(cd "$REPO" && swift build --show-bin-path 2>/dev/null || true)}
[ -x "$BIN/cast-gateway" ] || { echo "rollout-test: no cast-gateway in '$BIN' (swift build first, or set ROLLOUT_BIN)" >&2; exit 1; }

WORK=$(mktemp -d /tmp/cast-gateway-rollout-test-XXXXXX)
mkdir -p "$WORK/pids"
# Every process this test starts has a pid file here; stopped by pid.
finish() {
    local file pid
    for file in "$WORK"/pids/*.pid; do
        [ -f "$file" ] || continue
        pid=$(cat "$file")
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    done
    for file in "$WORK"/pids/*.pid; do
        [ -f "$file" ] || continue
        pid=$(cat "$file")
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ "$KEEP" = 1 ]; then echo "rollout-test: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap finish EXIT
trap 'exit 130' INT TERM
CASE_LOG_LINES=60
# shellcheck source=Tests/deploy/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh"
expect() { local why=$1; shift; "$@" || { log "expected: $why"; return 1; }; }
# wait_for SECONDS COMMAND...: until COMMAND succeeds, or false after SECONDS.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}
running() { kill -0 "$(cat "$1")" 2>/dev/null; }
stopped() { ! running "$1"; }

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\n' "$PORT" > "$WORK/mosquitto.conf"
mosquitto -c "$WORK/mosquitto.conf" 2> "$WORK/mosquitto.err" &
echo $! > "$WORK/pids/mosquitto.pid"
broker_up() { mosquitto_pub -h 127.0.0.1 -p "$PORT" -t rollout-test/ping -m x 2>/dev/null; }
wait_for 20 broker_up || { cat "$WORK/mosquitto.err" >&2; echo "rollout-test: mosquitto did not start" >&2; exit 1; }
MQTT=(-h 127.0.0.1 -p "$PORT")
retained() { mosquitto_sub "${MQTT[@]}" -t "$1" -C 1 -W 2 2>/dev/null || true; }

# --- the boxes -----------------------------------------------------------------
ROOMS=(r1 r2 r3)
URL=http://127.0.0.1:9/cast-gateway-qemu-arm64-2.0.raucb
head -c 100000 /dev/urandom > "$WORK/bundle.raucb"   # only its SHA-256 travels: the helper is simulated
SHA=$(sha256sum "$WORK/bundle.raucb" | cut -d' ' -f1)
start_gateway() {  # start_gateway ROOM
    local dir=$WORK/$1
    # mDNS discovery off (no system bus); the receiver address answers nothing.
    DBUS_SYSTEM_BUS_ADDRESS=unix:path=$WORK/no-system-bus "$BIN/cast-gateway" run --config "$dir/gateway.conf" \
        >> "$dir/gateway.log" 2>&1 &
    echo $! > "$WORK/pids/gateway-$1.pid"
    wait_for 30 gateway_online "$1" || { tail -20 "$dir/gateway.log" >&2; echo "rollout-test: gateway $1 not online" >&2; return 1; }
}
gateway_online() {
    running "$WORK/pids/gateway-$1.pid" || return 1
    [ "$(jq -r .version <<< "$(retained "castgw/$1/state")" 2>/dev/null)" = "$(sed -n 's/^VERSION=//p' "$WORK/$1/release")" ] \
        && [ "$(retained "castgw/$1/availability")" = online ]
}
stop_gateway() {  # stop_gateway ROOM: SIGTERM by pid, wait until it is gone
    local file=$WORK/pids/gateway-$1.pid
    kill "$(cat "$file")" 2>/dev/null || true
    wait_for 20 stopped "$file" || { echo "rollout-test: gateway $1 did not stop" >&2; return 1; }
}
# fresh_boxes: every room a new box on 1.0, no report, no request.
fresh_boxes() {
    local room dir
    for room in "${ROOMS[@]}"; do
        dir=$WORK/$room
        [ ! -f "$WORK/pids/gateway-$room.pid" ] || stop_gateway "$room"
        rm -rf "$dir"
        mkdir -p "$dir/progress" "$dir/update"
        echo "VERSION=1.0" > "$dir/release"
        cat > "$dir/gateway.conf" <<EOF
[device]
host = 127.0.0.1:9
[console]
device = none
[lirc]
socket = $dir/no-lircd
[mqtt]
broker = mqtt://127.0.0.1:$PORT
room = $room
[update]
from-fleet = yes
request = $dir/update-request
progress = $dir/progress/progress
release = $dir/release
report = $dir/update/report
EOF
        start_gateway "$room"
    done
    mosquitto_pub "${MQTT[@]}" -r -t castgw/all/update -n   # no announcement left from a case before
}

# --- the simulated root helper --------------------------------------------------
progress() {  # progress ROOM STATE [PERCENT [MESSAGE]]: as install-request writes it
    local file=$WORK/$1/progress/progress
    { echo "state=$2"; [ -z "${3:-}" ] || echo "percent=$3"; [ -z "${4:-}" ] || echo "message=$4"; } > "$file.new"
    mv "$file.new" "$file"
}
# helper ROOM OUTCOME: waits for the gateway's request and plays the root side:
#   good       downloads, installs, reboots into 2.0, commit-slot reports updated
#   bad-sha    the download's SHA-256 differs: failed, nothing installed
#   falls-back installs, reboots; 2.0 never commits, U-Boot goes back to 1.0
helper() {
    local room=$1 outcome=$2 dir=$WORK/$1
    wait_for 120 test -f "$dir/update-request" || { echo "no request within 120 s" > "$dir/helper.out"; return 1; }
    mv "$dir/update-request" "$dir/request.seen"
    progress "$room" downloading 50 "from $URL"
    if [ "$outcome" = bad-sha ]; then
        progress "$room" failed "" "the download's SHA-256 is $(printf '%064d' 0), not $SHA: removed, nothing installed"
        echo "answered: failed" > "$dir/helper.out"
        return 0
    fi
    progress "$room" installing 50
    progress "$room" installed 100 "rebooting into it"
    stop_gateway "$room"
    rm -f "$dir/progress/progress"   # /run is empty after a reboot
    if [ "$outcome" = good ]; then
        echo "VERSION=2.0" > "$dir/release"
        printf 'state=updated\nversion=2.0\nrunning=2.0\nprevious=1.0\ntime=%s\n' "$(date -u +%FT%TZ)" > "$dir/update/report"
    else
        printf 'state=failed\nversion=2.0\nrunning=1.0\ntime=%s\n' "$(date -u +%FT%TZ)" > "$dir/update/report"
    fi
    start_gateway "$room"
    echo "answered: $outcome" > "$dir/helper.out"
}
start_helpers() {  # start_helpers OUTCOME_R1 OUTCOME_R2 OUTCOME_R3
    local i=0 room
    for room in "${ROOMS[@]}"; do
        i=$((i + 1))
        helper "$room" "${!i}" >> "$WORK/$room/helper.log" 2>&1 &
        echo $! > "$WORK/pids/helper-$room.pid"
    done
}
stop_helpers() {
    local room
    for room in "${ROOMS[@]}"; do kill "$(cat "$WORK/pids/helper-$room.pid")" 2>/dev/null || true; done
}
rollout() {  # rollout ARGS...: deploy/rollout over MQTT; its output in $WORK/rollout.out, its exit status kept
    local rc=0
    "$REPO/deploy/rollout" --bundle "$WORK/bundle.raucb" --url "$URL" --version 2.0 --mqtt "127.0.0.1:$PORT" \
        --timeout 90 "$@" > "$WORK/rollout.out" 2>&1 || rc=$?
    log "deploy/rollout $* (exit $rc):"
    sed 's/^/  | /' "$WORK/rollout.out" >> "$WORK/case.log"
    return "$rc"
}
said() { grep -qF -- "$1" "$WORK/rollout.out" || { log "rollout did not say '$1'"; return 1; }; }
asked() {  # asked ROOM: the gateway wrote rollout's request (url and the bundle's SHA-256)
    [ "$(cat "$WORK/$1/request.seen" 2>/dev/null)" = "$(printf 'url=%s\nsha256=%s' "$URL" "$SHA")" ] \
        || { log "$1's request is not rollout's: $(cat "$WORK/$1/request.seen" 2>/dev/null || echo none)"; return 1; }
}
not_asked() {
    [ ! -e "$WORK/$1/request.seen" ] && [ ! -e "$WORK/$1/update-request" ] || { log "$1 got a request"; return 1; }
}
state_version() { jq -r .version <<< "$(retained "castgw/$1/state")"; }

case_all_updated() {
    fresh_boxes
    start_helpers good good good
    expect "the rollout succeeds" rollout --canary 1 --batch 2 --rooms r1 r2 r3 || return 1
    expect "two waves: the canary, then one batch of two" said "2 waves" || return 1
    said "wave 1 (canaries): r1" && said "wave 2 (batch 1): r2 r3" || return 1
    said "rollout: r1: healthy: runs 2.0, committed" || return 1
    local room
    for room in "${ROOMS[@]}"; do
        asked "$room" || return 1
        expect "$room reports 2.0" [ "$(state_version "$room")" = 2.0 ] || return 1
    done
    expect "the announcement is retained for Home Assistant" \
        [ "$(retained castgw/all/update)" = "{\"version\":\"2.0\",\"url\":\"$URL\",\"sha256\":\"$SHA\"}" ] || return 1
    # Again: every room already runs 2.0, nothing is sent.
    rm -f "$WORK"/r?/request.seen
    expect "a second rollout finds them updated" rollout --canary 1 --rooms r1 r2 r3 || return 1
    said "rollout: r3: already runs 2.0" || return 1
    not_asked r1
}
case_failing_canary() {
    fresh_boxes
    start_helpers bad-sha good good
    if rollout --canary 1 --batch 2 --rooms r1 r2 r3; then log "the rollout went on after its canary failed"; stop_helpers; return 1; fi
    stop_helpers
    said "rollout: r1: the update failed: the download's SHA-256 is" || return 1
    said "stopped after wave 1 (canaries): failed: r1; updated: none; not touched: 2" || return 1
    asked r1 && not_asked r2 && not_asked r3 || return 1
    expect "r2 still on 1.0" [ "$(state_version r2)" = 1.0 ] || return 1
    expect "nothing announced" [ -z "$(retained castgw/all/update)" ]
}
case_batch_falls_back() {
    fresh_boxes
    start_helpers good good falls-back
    if rollout --canary 1 --batch 2 --rooms r1 r2 r3; then log "the rollout succeeded with a box that fell back"; return 1; fi
    said "rollout: r3: the update to 2.0 did not start; U-Boot went back to 1.0" || return 1
    said "stopped after wave 2 (batch 1): failed: r3; updated: r1 r2; not touched: 0" || return 1
    expect "r1 on 2.0" [ "$(state_version r1)" = 2.0 ] || return 1
    expect "r3 back on 1.0" [ "$(state_version r3)" = 1.0 ] || return 1
    expect "nothing announced" [ -z "$(retained castgw/all/update)" ]
}
case_usage() {
    local rc=0
    "$REPO/deploy/rollout" --bundle "$WORK/bundle.raucb" --mqtt "127.0.0.1:$PORT" --rooms r1 > "$WORK/rollout.out" 2>&1 || rc=$?
    expect "no --url: usage error" [ "$rc" = 64 ] || return 1
    said "--mqtt needs --url http(s)://" || return 1
    rc=0
    "$REPO/deploy/rollout" --bundle "$WORK/bundle.raucb" --canary 0 host > "$WORK/rollout.out" 2>&1 || rc=$?
    expect "--canary 0: usage error" [ "$rc" = 64 ] || return 1
    said "--canary must be a whole number above 0, not '0'" || return 1
    rc=0
    "$REPO/deploy/rollout" --bundle "$WORK/bundle.raucb" --url "$URL" --version 2.0 --mqtt "127.0.0.1:$PORT" --rooms 'a/b' > "$WORK/rollout.out" 2>&1 || rc=$?
    expect "a room with a slash: usage error" [ "$rc" = 64 ] || return 1
    rc=0
    "$REPO/deploy/rollout" --bundle "$WORK/bundle.raucb" --canary 2 --batch 3 --dry-run h1 h2 h3 h4 h5 h6 > "$WORK/rollout.out" 2>&1 || rc=$?
    expect "a dry run succeeds" [ "$rc" = 0 ] || return 1
    said "wave 1 (canaries): h1 h2" && said "wave 2 (batch 1): h3 h4 h5" && said "wave 3 (batch 2): h6"
}

# --- over ssh: deploy/install --bundle per box, against fake boxes -----------
# An `ssh` first on PATH answers deploy/install's commands from a directory
# per host, as Tests/deploy/install-bundle.sh's fake box does (that test
# covers deploy/install itself; this one the waves around it).
mkdir -p "$WORK/ssh-bin"
cat > "$WORK/ssh-bin/ssh" <<'SSH'
#!/bin/bash
host=""
for argument in "$@"; do case $argument in *@*) host=${argument#*@}; break ;; esac; done
box=${FAKE_BOXES:?}/$host
[ -d "$box" ] || { echo "ssh: connect to host $host: Name or service not known" >&2; exit 255; }
echo "$*" >> "$box/calls"
command=${*: -1}
case $command in
    *"/etc/rauc/system.conf ]"*) echo "$(cat "$box/boot_id") cast-gateway-qemu-arm64 1.0" ;;
    *"cat > /data/"*) cat > "$box/bundle" ;;
    *"rauc info"*) echo "RAUC_MF_VERSION='2.0'" ;;
    *"rauc install"*) echo "100% Installing done." ;;
    *"systemctl reboot"*)
        echo "$RANDOM-after" > "$box/boot_id"
        case $(cat "$box/case") in
            good) printf 'state=updated\nversion=2.0\nrunning=2.0\nprevious=1.0\ntime=now\n' > "$box/report" ;;
            falls-back) printf 'state=failed\nversion=2.0\nrunning=1.0\ntime=now\n' > "$box/report" ;;
        esac
        exit 255 ;;
    *boot_id*) cat "$box/boot_id" ;;
    *"/var/lib/cast-gateway/update/report"*) cat "$box/report" 2>/dev/null || true ;;
    *"/proc/cmdline"*) echo B ;;
    *) echo "fake ssh: unexpected command: $command" >&2; exit 99 ;;
esac
SSH
chmod +x "$WORK/ssh-bin/ssh"
ssh_boxes() {  # ssh_boxes CASE...: fake boxes h1, h2, ... with these outcomes
    local i=0 outcome
    rm -rf "$WORK/boxes"
    for outcome in "$@"; do
        i=$((i + 1))
        mkdir -p "$WORK/boxes/h$i"
        echo "$outcome" > "$WORK/boxes/h$i/case"
        echo before > "$WORK/boxes/h$i/boot_id"
    done
}
ssh_rollout() {
    local rc=0
    FAKE_BOXES=$WORK/boxes PATH=$WORK/ssh-bin:$PATH CAST_GATEWAY_INSTALL_POLL=0.2 \
        "$REPO/deploy/rollout" --bundle "$WORK/bundle.raucb" --timeout 30 "$@" > "$WORK/rollout.out" 2>&1 || rc=$?
    log "deploy/rollout $* (exit $rc):"
    sed 's/^/  | /' "$WORK/rollout.out" >> "$WORK/case.log"
    return "$rc"
}
installed_on() { cmp -s "$WORK/bundle.raucb" "$WORK/boxes/$1/bundle" || { log "$1 did not get the bundle"; return 1; }; }
untouched() { [ ! -e "$WORK/boxes/$1/calls" ] || { log "$1 was contacted"; return 1; }; }
case_ssh() {
    ssh_boxes good good good good
    expect "four boxes, canary 1, batches of 2: all updated" ssh_rollout --canary 1 --batch 2 --no-host-key-check h1 h2 h3 h4 || return 1
    said "wave 3 (batch 2): h4" && said "rollout: all 4 updated" || return 1
    installed_on h1 && installed_on h4 || return 1
    expect "ssh options reach deploy/install's ssh" grep -q "StrictHostKeyChecking=no" "$WORK/boxes/h1/calls" || return 1
    ssh_boxes good good falls-back good
    if ssh_rollout --canary 1 --batch 2 h1 h2 h3 h4; then log "went on after a box fell back"; return 1; fi
    said "install: root@h3: the update to 2.0 failed: U-Boot went back" || return 1
    said "stopped after wave 2 (batch 1): failed: h3; updated: h1 h2; not touched: 1" || return 1
    untouched h4
}

run_case "usage errors, and the waves of a dry run" case_usage
run_case "over ssh (deploy/install --bundle, fake boxes): waves, and a box that falls back stops it" case_ssh
run_case "canary, then a batch of two: every room updated and committed, the update announced" case_all_updated
run_case "a canary whose download fails stops the rollout; no other room is asked" case_failing_canary
run_case "a batch member that falls back stops the rollout; the canary stays updated" case_batch_falls_back
echo "rollout: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
