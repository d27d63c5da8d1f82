#!/usr/bin/env bash
# The fault matrix: the real cast-gateway and cast-receiver-sim across a real,
# faulty link between network namespaces this script creates.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: Tests/faults/run.sh [--help] [--keep] [SCENARIO...]

Runs the fault matrix (issue 13): the gateway (driven through its serial
console on a pty) in one network namespace, cast-receiver-sim in another,
joined by a veth pair the script creates (10.213.N.0/29). Every scenario
starts its own namespaces and processes and removes them, by pid and by
deleting the namespaces, even when it fails.

Network faults:
  link-down     the link goes down for 30 s and comes back
  netem         300 ms delay and 5% loss during a burst of 200 remote keys
  mdns-move     the receiver's address changes; mDNS (avahi) re-announces it
Receiver faults:
  kill9         kill -9 and restart
  pings         PINGs stop being answered
  load-drop     the link drops in the middle of a LOAD
  garbage       garbage frames, then an oversized frame header
  slow          replies delayed 5 s
  takeover      a second sender takes over with another app
  not-cast      HTTP, then TLS with HTTP behind it, on port 8009

With no SCENARIO, runs them all. --keep keeps the work directory (logs,
console pushes, simulator message logs). Must run as root. Uses the debug
build (swift build --show-bin-path), or FAULTS_BIN=DIR.

The last line is "faults: N passed, M failed".
EOF
}

KEEP=0
SELECTED=()
for argument in "$@"; do
    case "$argument" in
        -h|--help) usage; exit 0 ;;
        --keep) KEEP=1 ;;
        -*) echo "run.sh: unknown option $argument (try --help)" >&2; exit 64 ;;
        *) SELECTED+=("$argument") ;;
    esac
done

if [ "$(id -u)" != 0 ]; then
    echo "run.sh: must run as root (it creates network namespaces)" >&2
    echo "faults: 0 passed, 1 failed"
    exit 1
fi

REPO=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$REPO/Tests/faults
BIN=${FAULTS_BIN:-$(cd "$REPO" && swift build --show-bin-path)}
for product in cast-gateway cast-receiver-sim; do
    if [ ! -x "$BIN/$product" ]; then
        echo "run.sh: $BIN/$product is missing: run swift build first" >&2
        echo "faults: 0 passed, 1 failed"
        exit 1
    fi
done
WORK=$(mktemp -d /tmp/cast-gateway-faults.XXXXXX)
TAG=cgf$$
MEDIA=http://media.test/film.mp4
passed=0
failed=0
failures=()

# --- cleanup: by pid, then by namespace ---------------------------------

# kill_pids FILE: stops every pid listed in FILE (TERM, then KILL).
kill_pids() {
    local file=$1 pid
    [ -f "$file" ] || return 0
    while read -r pid; do
        kill -TERM "$pid" 2>/dev/null || true
    done <"$file"
    while read -r pid; do
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
    done <"$file"
    : >"$file"
}

# cleanup_scenario DIR: its processes, then its namespaces (veths go with them).
cleanup_scenario() {
    local dir=$1 ns
    kill_pids "$dir/pids"
    if [ -f "$dir/netns" ]; then
        while read -r ns; do
            ip netns del "$ns" 2>/dev/null || true
        done <"$dir/netns"
        : >"$dir/netns"
    fi
}

cleanup() {
    local dir
    for dir in "$WORK"/*/; do
        [ -d "$dir" ] && cleanup_scenario "$dir"
    done
    if [ "$KEEP" = 1 ]; then
        echo "work directory kept: $WORK"
    else
        rm -rf "$WORK"
    fi
    # The last line, also after an interruption.
    echo "faults: $passed passed, $failed failed"
}
# kill_tree PID: PID and every process below it (a scenario's subshell and
# whatever it is running in the foreground).
kill_tree() {
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$child"; done
    kill -TERM "$1" 2>/dev/null || true
}
scenario_pid=
interrupted() {
    if [ -n "$scenario_pid" ]; then
        kill_tree "$scenario_pid"
        echo "interrupted during $SCENARIO"
        failed=$((failed + 1))
    fi
    exit 130
}
trap cleanup EXIT
trap interrupted INT TERM

# --- helpers (run inside a scenario's subshell) ---------------------------

log() { echo "  [$SCENARIO] $*"; }
fail() {
    echo "  [$SCENARIO] FAIL: $*" >&2
    exit 1
}

# remember PID: the scenario's cleanup stops it.
remember() { echo "$1" >>"$S/pids"; }

# pause_for SECONDS: the length of a fault (never a wait for a condition).
pause_for() {
    sleep "$1" &
    remember $!
    wait $!
}

# now: seconds since the epoch, with milliseconds.
now() { date +%s.%N | cut -c1-14; }

# wait_until SECONDS DESCRIPTION COMMAND...: polls COMMAND (every 0.1 s) until it succeeds.
wait_until() {
    local limit=$1 what=$2 deadline
    shift 2
    deadline=$(($(date +%s) + limit))
    until "$@"; do
        [ "$(date +%s)" -lt "$deadline" ] || fail "timed out after ${limit}s waiting for $what"
        sleep 0.1
    done
}

# make_link N [wire]: namespaces $NS_G (gateway) and $NS_R (receiver), joined
# by the veth pair $VETH_G/$VETH_R (or, with "wire", by two TAP devices and
# Tests/faults/wire.py between them), with $IP_G and $IP_R from 10.213.N.0/29.
make_link() {
    local n=$1 kind=${2:-veth} ns
    NS_G=${TAG}g$n NS_R=${TAG}r$n VETH_G=${TAG}a$n VETH_R=${TAG}b$n
    IP_G=10.213.$n.1 IP_R=10.213.$n.2
    for ns in "$NS_G" "$NS_R"; do
        if [ ! -e "/run/netns/$ns" ]; then
            ip netns add "$ns"
            echo "$ns" >>"$S/netns"
            ip -n "$ns" link set lo up
        fi
    done
    if [ "$kind" = wire ]; then
        # Seed 12 drops the 5th impaired frame (then 5%): every run loses frames.
        python3 "$HERE/wire.py" "$VETH_G" "$VETH_R" 300 5 12 >"$S/wire.out" 2>&1 &
        WIRE_PID=$!
        remember "$WIRE_PID"
        wait_until 5 "the wire" grep -q '^ready' "$S/wire.out"
        ip link set "$VETH_G" netns "$NS_G"
        ip link set "$VETH_R" netns "$NS_R"
    else
        ip link add "$VETH_G" netns "$NS_G" type veth peer name "$VETH_R" netns "$NS_R"
    fi
    ip -n "$NS_G" addr add "$IP_G/29" dev "$VETH_G"
    ip -n "$NS_R" addr add "$IP_R/29" dev "$VETH_R"
    ip -n "$NS_G" link set "$VETH_G" up
    ip -n "$NS_R" link set "$VETH_R" up
    DEVICE=$IP_R:8009
}

# start_sim [ARGS...]: cast-receiver-sim on $IP_R:8009 in $NS_R; control commands
# go to its stdin through a fifo that stays open across restarts.
start_sim() {
    local before
    if [ ! -p "$S/sim.in" ]; then
        mkfifo "$S/sim.in"
        exec 7<>"$S/sim.in"
    fi
    touch "$S/sim.out"
    before=$(grep -c '^listening ' "$S/sim.out" || true)
    ip netns exec "$NS_R" env ${SIM_ENV:-} "$BIN/cast-receiver-sim" --port 8009 --bind 0.0.0.0 \
        --log "$S/sim.jsonl" --state "$S/sim.state" --ping-interval 5 "$@" <&7 >>"$S/sim.out" 2>>"$S/sim.err" &
    SIM_PID=$!
    remember "$SIM_PID"
    disown "$SIM_PID"  # no job notice when a scenario kills it
    wait_until 10 "the simulator to listen" sim_listening "$before"
}
sim_listening() { [ "$(grep -c '^listening ' "$S/sim.out" || true)" -gt "$1" ]; }

# sim COMMAND: runs a simulator control command and prints its answer line.
sim() {
    local before
    before=$(wc -l <"$S/sim.out")
    echo "$1" >&7
    wait_until 5 "the simulator to answer '$1'" sim_answered "$before"
    sed -n "$((before + 1))p" "$S/sim.out"
}
sim_answered() { [ "$(wc -l <"$S/sim.out")" -gt "$1" ]; }

# sim_field NAME: one field of the simulator's status (player, position, volume, app...).
sim_field() { sim status | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# sim_wait SECONDS FIELD=VALUE...: waits until the simulator's status shows every FIELD=VALUE.
sim_wait() {
    local limit=$1
    shift
    wait_until "$limit" "the receiver to show $*" sim_shows "$@"
}
sim_shows() {
    local status pair
    status=" $(sim status) "
    for pair in "$@"; do
        case "$status" in *" $pair "*) ;; *) return 1 ;; esac
    done
}

# sim_count TYPE [APPID]: messages of TYPE (with appId APPID) the simulator received.
sim_count() {
    python3 - "$S/sim.jsonl" "$1" "${2:-}" <<'EOF'
import json, sys
path, kind, app = sys.argv[1:4]
count = 0
for line in open(path, encoding="utf-8", errors="replace") if __import__("os").path.exists(path) else []:
    try:
        data = json.loads(json.loads(line).get("data", ""))
    except ValueError:
        continue
    if isinstance(data, dict) and data.get("type") == kind and (not app or data.get("appId") == app):
        count += 1
print(count)
EOF
}

# start_gateway [CONFIG-LINES...]: the daemon in $NS_G with its console on a pty.
start_gateway() {
    local line
    {
        if [ "$#" -eq 0 ]; then printf '[device]\nhost = %s\n' "$DEVICE"; fi
        for line in "$@"; do printf '%s\n' "$line"; done
        printf '[console]\ndevice = %s\nbaud = 57600\n[log]\nlevel = info\n' "$S/serial0"
    } >"$S/gateway.conf"
    python3 "$HERE/console.py" serve "$S/serial0" "$S/console.sock" "$S" 2>>"$S/console.err" &
    remember $!
    wait_until 5 "the console pty" test -S "$S/console.sock"
    ip netns exec "$NS_G" env ${GATEWAY_ENV:-} "$BIN/cast-gateway" run --config "$S/gateway.conf" \
        >>"$S/gateway.log" 2>&1 &
    GATEWAY_PID=$!
    remember "$GATEWAY_PID"
}

# ask COMMAND: a console command; prints its JSON reply, fails unless ok.
ask() {
    local reply
    reply=$(python3 "$HERE/console.py" ask "$S/console.sock" "$1") || fail "no console reply to '$1'"
    case "$reply" in
        *'"ok":true'*) echo "$reply" ;;
        *) fail "console '$1' answered $reply" ;;
    esac
}

# state TIMEOUT KEY=VALUE...: waits until the gateway's pushed status matches; prints it.
state() {
    local limit=$1
    shift
    python3 "$HERE/console.py" wait "$S/console.sock" "$limit" "$@" >"$S/state.json" ||
        fail "status never showed $* within ${limit}s; last: $(cat "$S/state.json")"
    cat "$S/state.json"
}

# field NAME: one field of the last state printed by `state` (error: its message).
field() {
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); v=s.get(sys.argv[2]); print((v or {}).get("message","") if sys.argv[2]=="error" else ("" if v is None else v))' \
        "$S/state.json" "$1"
}

# console_status: the text of the console's `status` command.
console_status() {
    ask status | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["lines"]))'
}

# playing: the receiver plays $MEDIA, cast through the gateway's console.
playing() {
    state 15 link=connected >/dev/null
    ask "cast $MEDIA Film Night" >/dev/null
    state 15 link=connected player=PLAYING title="Film Night" >/dev/null
}

# sim_joins: how many connections CONNECTed to a running app (a rejoin adds one).
sim_joins() {
    python3 - "$S/sim.jsonl" <<'EOF'
import json, sys
joined = set()
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    entry = json.loads(line)
    if entry.get("destination") != "receiver-0" and '"CONNECT"' in entry.get("data", ""):
        joined.add(entry.get("connection"))
print(len(joined))
EOF
}

# expect_launches N: the gateway launched its app exactly N times.
expect_launches() {
    local count
    count=$(sim_count LAUNCH CC1AD845)
    [ "$count" = "$1" ] || fail "the receiver got $count LAUNCH from the gateway, expected $1"
}

# --- scenarios ----------------------------------------------------------

scenario_link_down() {
    make_link 1
    start_sim
    start_gateway
    playing
    local p0 t0 p1 t1 elapsed
    p0=$(sim_field position)
    t0=$(now)
    ip -n "$NS_G" link set "$VETH_G" down
    log "link down at position $p0"
    state 25 link=reconnecting >/dev/null
    log "gateway: $(field link), error LED $(field led): $(field error)"
    # The fault itself lasts 30 s (not a wait for a condition).
    pause_for "$(python3 -c "print(max(0, 30 - ($(now) - $t0)))")"
    ip -n "$NS_G" link set "$VETH_G" up
    log "link up after $(python3 -c "print(round($(now) - $t0, 1))") s"
    state 45 link=connected player=PLAYING title="Film Night" >/dev/null
    p1=$(sim_field position)
    t1=$(now)
    elapsed=$(python3 -c "print(round($t1 - $t0, 1))")
    log "rejoined: receiver $(sim status); position $p0 -> $p1 in ${elapsed}s"
    [ "$(sim_field player)" = PLAYING ] || fail "the receiver is not playing"
    python3 -c "import sys; sys.exit(0 if abs(($p1 - $p0) - $elapsed) < 2 else 1)" ||
        fail "playback was interrupted: position $p0 -> $p1 over ${elapsed}s"
    expect_launches 1
    [ "$(sim_joins)" -ge 2 ] || fail "the gateway did not rejoin the app on a new connection"
    [ "$(sim_count LOAD)" = 1 ] || fail "the media was loaded again"
    for kind in STOP PAUSE; do
        [ "$(sim_count "$kind")" = 0 ] || fail "the receiver got $kind"
    done
}

# 200 remote keys (volume up and down, one play/pause, one mute) over a link
# with 300 ms delay and 5% loss: the final volume, player and mute are exact.
scenario_netem() {
    local kind=veth expected
    make_link 2
    if tc -n "$NS_G" qdisc add dev "$VETH_G" root netem delay 300ms loss 5% 2>"$S/tc.err"; then
        tc -n "$NS_G" qdisc del dev "$VETH_G" root
    else
        # This kernel has no sch_netem: the same impairment from a userspace wire.
        log "tc netem unavailable ($(head -n 1 "$S/tc.err")); using Tests/faults/wire.py on TAP devices"
        ip -n "$NS_G" link del "$VETH_G"
        kind=wire
        make_link 2 wire
    fi
    start_sim
    start_gateway
    playing
    ask "vol 50" >/dev/null
    state 10 volume=50 >/dev/null
    # A random walk that never leaves 0..100 %, so the clamp cannot make the
    # result depend on how the scheduler coalesced the steps.
    expected=$(python3 - "$S/keys" <<'PY'
import random, sys
rng, level, keys = random.Random(13), 50, []
for index in range(200):
    if index == 66:
        keys.append("KEY_PLAYPAUSE")
    elif index == 133:
        keys.append("KEY_MUTE")
    else:
        up = rng.random() < 0.5
        if level + (5 if up else -5) not in range(0, 101):
            up = not up
        level += 5 if up else -5
        keys.append("KEY_VOLUMEUP" if up else "KEY_VOLUMEDOWN")
open(sys.argv[1], "w").write("".join(f"key {key}\n" for key in keys))
print(level)
PY
)
    if [ "$kind" = wire ]; then
        kill -USR1 "$WIRE_PID"
    else
        tc -n "$NS_G" qdisc add dev "$VETH_G" root netem delay 300ms loss 5%
    fi
    local t0
    t0=$(now)
    # A held remote repeats every ~110 ms; this burst is faster still (25 keys/s).
    python3 "$HERE/console.py" many "$S/console.sock" "$S/keys" 0.04 || fail "a key was refused"
    log "200 keys sent in $(python3 -c "print(round($(now) - $t0, 1))") s; expecting volume $expected%, PAUSED, muted"
    # The gateway shows a requested volume at once: the receiver's own status is the judge.
    sim_wait 90 volume="$expected%" player=PAUSED muted=true
    log "receiver settled after $(python3 -c "print(round($(now) - $t0, 1))") s: $(sim status)"
    state 10 link=connected volume="$expected" player=PAUSED muted=True >/dev/null
    local dropped
    if [ "$kind" = wire ]; then
        kill -USR2 "$WIRE_PID"
        wait_until 5 "the wire's counts" grep -q '^wire:' "$S/wire.out"
        log "$(grep '^wire:' "$S/wire.out")"
        dropped=$(sed -n 's/^wire: .*, \([0-9]*\) dropped$/\1/p' "$S/wire.out")
        # Without a single lost frame, this run did not test loss.
        [ "${dropped:-0}" -gt 0 ] || fail "no frame was lost: the loss was not exercised"
    else
        # netem's own random loss: with ~50 frames, a run without any loss is possible (~8%).
        log "netem: $(tc -s -n "$NS_G" qdisc show dev "$VETH_G" | grep -o 'Sent.*')"
        tc -n "$NS_G" qdisc del dev "$VETH_G" root
    fi
    expect_launches 1
}

# start_avahi NAME NS INTERFACE: a private D-Bus system bus ($S/bus-NAME.sock)
# and an avahi-daemon in NS, restricted to INTERFACE, with its own
# /run/avahi-daemon (a private mount namespace) and host name.
start_avahi() {
    local name=$1 ns=$2 interface=$3 bus=unix:path=$S/bus-$1.sock
    sed "s|@LISTEN@|$bus|" "$REPO/Tests/support/private-system-bus.conf" > "$S/bus-$name.conf"
    sed -e "s|@HOST_NAME@|$TAG$name|" -e "s|@INTERFACE@|$interface|" "$REPO/Tests/support/avahi-daemon.conf" > "$S/avahi-$name.conf"
    dbus-daemon --nofork --nopidfile --config-file="$S/bus-$name.conf" >"$S/bus-$name.log" 2>&1 &
    remember $!
    wait_until 10 "dbus-daemon ($name)" test -S "$S/bus-$name.sock"
    mkdir -p /run/avahi-daemon
    ip netns exec "$ns" env DBUS_SYSTEM_BUS_ADDRESS="$bus" unshare --mount --propagation private -- /bin/sh -c \
        "mount -t tmpfs cast-gateway-faults /run/avahi-daemon && exec avahi-daemon --no-drop-root --no-chroot --no-rlimits -f '$S/avahi-$name.conf'" \
        >"$S/avahi-$name.log" 2>&1 &
    remember $!
    wait_until 15 "avahi-daemon ($name)" grep -q 'Server startup complete' "$S/avahi-$name.log"
}

# The receiver's address changes mid-session; avahi re-announces it over mDNS
# and the gateway, configured with the device's name, follows it: same app,
# no relaunch, playback not restarted.
scenario_mdns_move() {
    local name="Faults Lounge $$" new_ip
    make_link 3
    new_ip=10.213.3.3
    start_avahi r "$NS_R" "$VETH_R"
    start_avahi g "$NS_G" "$VETH_G"
    SIM_ENV=DBUS_SYSTEM_BUS_ADDRESS=unix:path=$S/bus-r.sock start_sim --publish "$name"
    GATEWAY_ENV=DBUS_SYSTEM_BUS_ADDRESS=unix:path=$S/bus-g.sock start_gateway "[device]" "name = $name"
    state 20 link=connected address="$IP_R:8009" >/dev/null
    playing
    log "found \"$name\" at $(field address) over mDNS; playing"
    # The new address first, then the old one goes (promoted, the new one stays).
    ip netns exec "$NS_R" sysctl -qw "net.ipv4.conf.$VETH_R.promote_secondaries=1"
    ip -n "$NS_R" addr add "$new_ip/29" dev "$VETH_R"
    ip -n "$NS_R" addr del "$IP_R/29" dev "$VETH_R"
    log "the receiver moved to $new_ip"
    state 40 link=connected address="$new_ip:8009" player=PLAYING title="Film Night" >/dev/null
    log "gateway followed to $(field address): $(field player) \"$(field title)\"; receiver $(sim status)"
    grep -q "device moved: $IP_R:8009 -> $new_ip:8009" "$S/gateway.log" || fail "the gateway log does not say the device moved"
    expect_launches 1
    [ "$(sim_count LOAD)" = 1 ] || fail "the media was loaded again"
    [ "$(sim_field player)" = PLAYING ] || fail "the receiver stopped playing"
}

# The receiver is killed with SIGKILL and restarted (its app and media kept, as
# after a network cut): the gateway reports it offline, then rejoins.
scenario_kill9() {
    make_link 4
    start_sim
    start_gateway
    playing
    kill -KILL "$SIM_PID"
    state 10 link=reconnecting >/dev/null
    log "killed: gateway $(field link), error LED $(field led): $(field error)"
    start_sim
    state 30 link=connected player=PLAYING title="Film Night" >/dev/null
    log "restarted: gateway $(field link) $(field player), receiver $(sim status)"
    expect_launches 1
    [ "$(sim_count LOAD)" = 1 ] || fail "the media was loaded again"
}

# The receiver stops answering PINGs (and sends none): the gateway declares
# the link dead after 15 s, reports it, and rejoins once the receiver answers.
scenario_pings() {
    make_link 5
    start_sim
    start_gateway
    playing
    sim "fault ignore-pings on" >/dev/null
    state 25 link=reconnecting error~heartbeat >/dev/null
    log "gateway $(field link), error LED $(field led): $(field error)"
    sim "fault ignore-pings off" >/dev/null
    state 40 link=connected player=PLAYING title="Film Night" >/dev/null
    [ "$(sim_field player)" = PLAYING ] || fail "the receiver stopped playing"
    expect_launches 1
    [ "$(sim_count LOAD)" = 1 ] || fail "the media was loaded again"
}

# The link drops while a LOAD waits for its answer (the receiver holds its
# replies 1.5 s, the link goes down as the LOAD arrives, the receiver drops
# the connection, the link returns): the cast fails with a reason, the gateway
# rejoins the app it launched, and the next cast plays without a second LAUNCH.
scenario_load_drop() {
    make_link 6
    start_sim
    start_gateway
    state 15 link=connected >/dev/null
    sim "fault delay-ms 1500" >/dev/null
    python3 "$HERE/console.py" ask "$S/console.sock" "cast $MEDIA Film Night" >"$S/cast.reply" &
    local asker=$!
    remember "$asker"
    wait_until 15 "the LOAD to reach the receiver" sim_got LOAD
    ip -n "$NS_G" link set "$VETH_G" down
    sim drop >/dev/null
    sim "fault delay-ms 0" >/dev/null
    log "link down as the LOAD arrived; the receiver dropped the connection"
    # The outage itself (not a wait for a condition): 3 s without a link.
    pause_for 3
    ip -n "$NS_G" link set "$VETH_G" up
    wait "$asker" || true
    log "cast answered: $(cat "$S/cast.reply")"
    grep -q '"ok":false' "$S/cast.reply" || fail "the interrupted cast did not fail: $(cat "$S/cast.reply")"
    state 40 link=connected appId=CC1AD845 >/dev/null
    log "gateway $(field link) to app $(field appId), error: $(field error)"
    ask "cast $MEDIA Film Night" >/dev/null
    state 15 link=connected player=PLAYING title="Film Night" >/dev/null
    sim_wait 5 player=PLAYING
    expect_launches 1
    [ "$(sim_count LOAD)" = 2 ] || fail "expected 2 LOADs (the lost one and the retry), got $(sim_count LOAD)"
}
sim_got() { [ "$(sim_count "$1")" -gt 0 ]; }
# listening NS PORT: a TCP socket listens on PORT in NS.
listening() { ip netns exec "$1" ss -Hltn "sport = $2" | grep -q .; }

# Garbage from the receiver (the simulator's `garbage` command): malformed
# frames are skipped on the same link; a 2 GiB frame header loses the framing,
# so the gateway drops that link, reports it, and rejoins without a LAUNCH.
scenario_garbage() {
    make_link 7
    start_sim
    start_gateway
    playing
    [ "$(sim "garbage frames")" = "ok sent to 1" ] || fail "the simulator sent no garbage"
    ask pause >/dev/null
    state 10 link=connected player=PAUSED >/dev/null
    [ "$(sim_joins)" = 1 ] || fail "malformed frames dropped the link"
    log "after malformed frames: still on the first connection, $(field player)"
    [ "$(sim "garbage oversized")" = "ok sent to 1" ] || fail "the simulator sent no garbage"
    wait_until 15 "the gateway to rejoin on a new connection" joined_twice
    state 15 link=connected player=PAUSED >/dev/null
    grep '"link": "reconnecting"' "$S/pushes.jsonl" | grep -q 'frame-too-large' ||
        grep -q 'OFFLINE.*frame-too-large' "$S/gateway.log" ||
        fail "the lost link was never reported with its reason"
    log "after a 2 GiB frame header: reported offline (error LED 2, frame-too-large), rejoined, $(field player)"
    expect_launches 1
    [ "$(sim_count LOAD)" = 1 ] || fail "the media was loaded again"
}
joined_twice() { [ "$(sim_joins)" -ge 2 ]; }

# Every reply held 5 s (less than the 10 s request timeout): commands succeed,
# slowly; the link never drops and nothing is relaunched.
scenario_slow() {
    make_link 8
    start_sim
    start_gateway
    playing
    sim "fault delay-ms 5000" >/dev/null
    local t0 took
    t0=$(now)
    ask pause >/dev/null
    took=$(python3 -c "print(round($(now) - $t0, 1))")
    log "pause answered after ${took}s"
    python3 -c "import sys; sys.exit(0 if $took >= 4.5 else 1)" || fail "the pause was not held by the receiver"
    state 10 link=connected player=PAUSED >/dev/null
    ask "vol 30" >/dev/null
    state 15 link=connected volume=30 >/dev/null
    sim_wait 5 player=PAUSED volume=30%
    sim "fault delay-ms 0" >/dev/null
    if grep -q '"link": "reconnecting"' "$S/pushes.jsonl"; then fail "the link dropped under slow replies"; fi
    expect_launches 1
}

# A second sender (cast-gateway's one-shot `cast`, as a phone would) launches
# another app and plays its own media: the gateway follows it, controls it, and
# never launches its own app again.
scenario_takeover() {
    make_link 9
    start_sim
    start_gateway
    playing
    ip netns exec "$NS_G" "$BIN/cast-gateway" cast http://media.test/phone.mp4 --device "$DEVICE" \
        --title "Phone Film" --app-id 1A2B3C4D >"$S/phone.out" 2>&1 || fail "the second sender failed: $(cat "$S/phone.out")"
    state 15 link=connected appId=1A2B3C4D title="Phone Film" player=PLAYING >/dev/null
    log "gateway follows: app $(field appId) \"$(field title)\" $(field player)"
    ask pause >/dev/null
    sim_wait 10 app=1A2B3C4D player=PAUSED
    state 10 player=PAUSED >/dev/null
    expect_launches 1
    [ "$(sim_count LAUNCH 1A2B3C4D)" = 1 ] || fail "the second sender's app was launched $(sim_count LAUNCH 1A2B3C4D) times"
}

# Port 8009 answers HTTP (python's http.server), then TLS with an HTTP answer
# behind it (openssl s_server): the gateway reports each and keeps
# retrying; when the real receiver comes, it connects and casts (one LAUNCH).
scenario_not_cast() {
    make_link 10
    ip netns exec "$NS_R" python3 -m http.server 8009 --bind "$IP_R" --directory "$S" >"$S/http.log" 2>&1 &
    local server=$!
    remember "$server"
    wait_until 10 "http.server" grep -q 'Serving HTTP' "$S/http.log"
    start_gateway
    state 20 link=reconnecting error~"does not speak Cast" >/dev/null
    log "plain HTTP: gateway $(field link), error LED $(field led): $(field error)"
    console_status >"$S/status.txt"
    grep -q "^  link: reconnecting to $DEVICE" "$S/status.txt" || fail "console status says: $(cat "$S/status.txt")"
    grep -q "^\* OFFLINE .*does not speak Cast" "$S/status.txt" || fail "console status says: $(cat "$S/status.txt")"
    kill "$server"
    openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=not-a-cast-device -days 1 \
        -keyout "$S/tls.key" -out "$S/tls.pem" >/dev/null 2>&1
    printf 'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n' >"$S/http.txt"
    ip netns exec "$NS_R" openssl s_server -accept "$IP_R:8009" -quiet -cert "$S/tls.pem" -key "$S/tls.key" \
        >"$S/s_server.log" 2>&1 <"$S/http.txt" &
    server=$!
    remember "$server"
    wait_until 10 "openssl s_server" listening "$NS_R" 8009
    state 40 link=reconnecting error~"answered with text" >/dev/null
    log "HTTP over TLS: gateway $(field link), error LED $(field led): $(field error)"
    kill "$server"
    start_sim
    state 45 link=connected >/dev/null
    playing
    expect_launches 1
}

# --- runner -------------------------------------------------------------

ALL=(link-down netem mdns-move kill9 pings load-drop garbage slow takeover not-cast)
[ "${#SELECTED[@]}" -gt 0 ] || SELECTED=("${ALL[@]}")

started=$(date +%s)
for SCENARIO in "${SELECTED[@]}"; do
    function=scenario_${SCENARIO//-/_}
    if ! declare -F "$function" >/dev/null; then
        echo "run.sh: unknown scenario $SCENARIO (try --help)" >&2
        failed=$((failed + 1))
        failures+=("$SCENARIO")
        continue
    fi
    S=$WORK/$SCENARIO
    mkdir -p "$S"
    begin=$(date +%s)
    echo "== $SCENARIO"
    # In the background, so that a signal to this script interrupts it at once.
    (set -e; "$function") &
    scenario_pid=$!
    status=0
    wait "$scenario_pid" || status=$?
    scenario_pid=
    cleanup_scenario "$S"
    if [ "$status" = 0 ]; then
        passed=$((passed + 1))
        echo "ok $SCENARIO ($(($(date +%s) - begin)) s)"
    else
        failed=$((failed + 1))
        failures+=("$SCENARIO")
        echo "FAILED $SCENARIO ($(($(date +%s) - begin)) s); its gateway log ends:"
        tail -n 15 "$S/gateway.log" 2>/dev/null | sed 's/^/    /'
    fi
done
echo "run time: $(($(date +%s) - started)) s${failures[*]:+; failed: ${failures[*]}}"
[ "$failed" = 0 ]
