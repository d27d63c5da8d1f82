#!/bin/bash
# The web interface in a real browser: headless Chromium (Debian's chromium
# and chromium-driver) driven by Selenium, against the real cast-gateway
# daemon and the receiver simulator on loopback (Tests/web/web_check.py).
# Then curl checks the DNS-rebinding defence (foreign Host / Origin) and,
# after a restart with [web] tls = self-signed, HTTPS with the kept certificate.
# A second simulator publishes itself over mDNS for the device picker: a
# private D-Bus bus and an avahi-daemon in namespaces of its own (its own
# loopback only), as the integration tests run them; so this needs root.
#
#   Tests/web/run.sh [--keep] [--screenshots DIR]
#
# --keep keeps the temporary directory with every log; --screenshots DIR
# copies the desktop (1280 px wide) and phone (390 px) screenshots there
# (docs/web-desktop.png and docs/web-phone.png are these).
# Selenium comes from the venv Tests/homeassistant/run.sh builds (one venv,
# pinned selenium==4.27.1; this script builds none): run that first.
# Environment: CAST_GATEWAY_CACHE (default /var/cache/cast-gateway) holds the
# venv; WEB_BIN is the directory with cast-gateway and cast-receiver-sim
# (default: swift build --show-bin-path in this repository).
# The last line is "web: N passed, M failed".
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# The Home Assistant test's venv (VENV; its name pins both versions).
# shellcheck source=Tests/homeassistant/venv.sh
source "$REPO/Tests/homeassistant/venv.sh"
KEEP=false
SCREENSHOTS=""
usage() { echo "usage: $0 [--keep] [--screenshots DIR]" >&2; echo "web: 0 passed, 1 failed"; exit 64; }
while [ $# -gt 0 ]; do
    case $1 in
        --keep) KEEP=true ;;
        --screenshots) [ $# -ge 2 ] || usage; SCREENSHOTS=$2; shift ;;
        *) usage ;;
    esac
    shift
done

WORK=""
PASSED=0
FAILED=1   # until the checker says otherwise
PIDFILES=()
say() { echo "web: $*"; }

cleanup() {
    local status=$? i pid file
    trap - EXIT INT TERM
    set +e
    for ((i = ${#PIDFILES[@]} - 1; i >= 0; i--)); do
        pid=$(cat "${PIDFILES[i]}" 2>/dev/null)
        [ -n "$pid" ] || continue
        kill "$pid" 2>/dev/null
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    if [ "$status" -ne 0 ] || [ "$FAILED" -ne 0 ]; then
        for file in gateway.err sim.out sim.err sim2.err avahi.err lircd.log chromedriver.log browser-console.log; do
            if [ -z "$WORK" ] || [ ! -s "$WORK/$file" ]; then continue; fi
            echo "----- last lines of $file -----"
            tail -n 30 "$WORK/$file"
        done
    fi
    if [ -n "$WORK" ]; then
        if $KEEP; then say "kept $WORK"; else rm -rf "$WORK"; fi
    fi
    [ "$status" -eq 0 ] || FAILED=$((FAILED > 0 ? FAILED : 1))
    echo "web: $PASSED passed, $FAILED failed"
    exit $((status != 0 ? status : FAILED > 0))
}
trap cleanup EXIT
trap 'exit 130' INT TERM

setup_failed() { say "setup failed: $*"; exit 1; }

# start NAME COMMAND...: runs COMMAND in the background (stdin from
# WORK/NAME.in when it exists), pid in WORK/NAME.pid, stopped on exit.
start() {
    local name=$1 input=/dev/null
    shift
    [ -p "$WORK/$name.in" ] && input=$WORK/$name.in
    # Emptied here, not by the background job's redirection: a wait on the log
    # right after must not read an earlier run's lines (a restart did, under load).
    : > "$WORK/$name.out"
    : > "$WORK/$name.err"
    "$@" < "$input" >> "$WORK/$name.out" 2>> "$WORK/$name.err" &
    echo $! > "$WORK/$name.pid"
    disown $!
    PIDFILES+=("$WORK/$name.pid")
}

# wait_until SECONDS WHAT COMMAND...
wait_until() {
    local seconds=$1 what=$2 deadline=$((SECONDS + $1))
    shift 2
    until "$@"; do
        [ "$SECONDS" -le "$deadline" ] || setup_failed "$what did not happen within $seconds s"
        sleep 0.1
    done
}

[ "$(id -u)" -eq 0 ] || setup_failed "run as root: avahi-daemon runs in network and mount namespaces of its own"
for program in /usr/bin/chromium /usr/bin/chromedriver /usr/bin/dbus-daemon /usr/sbin/avahi-daemon /usr/bin/unshare /usr/sbin/lircd \
    /usr/bin/irsend; do
    [ -x "$program" ] || setup_failed "$program is not installed (deploy/install-build-deps.sh installs it)"
done
[ -x "$VENV/bin/python" ] || setup_failed "no venv at $VENV: Tests/homeassistant/run.sh builds it (this test uses its selenium)"
"$VENV/bin/python" -c 'import selenium' 2>/dev/null || setup_failed "$VENV has no selenium; run Tests/homeassistant/run.sh"
if [ -z "${WEB_BIN:-}" ]; then
    WEB_BIN=$(cd "$REPO" && swift build --show-bin-path) || setup_failed "swift build --show-bin-path failed"
fi
for program in cast-gateway cast-receiver-sim; do
    [ -x "$WEB_BIN/$program" ] || setup_failed "no $WEB_BIN/$program (build first, or set WEB_BIN)"
done

WORK=$(mktemp -d /tmp/cast-gateway-web.XXXXXX)

# mDNS: a private system bus, and avahi-daemon restricted to lo in its own
# network namespace (only this test's services on it) and mount namespace
# (its own /run/avahi-daemon). D-Bus is a socket path, so it reaches across;
# the services resolve to 127.0.0.1, which is the host's loopback for the
# gateway and the simulators.
BUS="unix:path=$WORK/bus.sock"
sed "s|@LISTEN@|$BUS|" "$REPO/Tests/support/private-system-bus.conf" > "$WORK/bus.conf"
start bus dbus-daemon --nofork --nopidfile --config-file="$WORK/bus.conf"
wait_until 10 "the private D-Bus bus" test -S "$WORK/bus.sock"
sed -e "s|@HOST_NAME@|cast-gateway-web-test|" -e "s|@INTERFACE@|lo|" "$REPO/Tests/support/avahi-daemon.conf" > "$WORK/avahi-daemon.conf"
mkdir -p /run/avahi-daemon
start avahi env DBUS_SYSTEM_BUS_ADDRESS="$BUS" unshare --mount --net --propagation private -- /bin/sh -c \
    "ip link set lo up && mount -t tmpfs cast-gateway-web /run/avahi-daemon && exec avahi-daemon --no-drop-root --no-chroot --no-rlimits -f '$WORK/avahi-daemon.conf'"
wait_until 15 "avahi-daemon serving" grep -q 'Server startup complete' "$WORK/avahi.err"
export DBUS_SYSTEM_BUS_ADDRESS="$BUS"

# The second receiver, found only through mDNS (the device picker).
start sim2 "$WEB_BIN/cast-receiver-sim" --port 0 --log "$WORK/sim2.jsonl" --ping-interval 5 --publish "Web Test Bedroom"
wait_until 10 "the second simulator listening" grep -qs '^listening' "$WORK/sim2.out"

# A real lircd whose keys the test sends with irsend SIMULATE (the inputs table).
LIRC_SOCKET=$WORK/lircd.sock
start lircd lircd --nodaemon --driver=file --device=/dev/null --allow-simulate --output="$LIRC_SOCKET" \
    --pidfile="$WORK/lircd.pidfile" --logfile="$WORK/lircd.log" /etc/lirc/lircd.conf.d/devinput.lircd.conf
wait_until 10 "lircd's socket $LIRC_SOCKET" test -S "$LIRC_SOCKET"

# The simulator reads control commands (another sender's pause) from a FIFO
# that this script holds open, so it never sees end of file.
mkfifo "$WORK/sim.in"
# shellcheck disable=SC2034 # held open, never read here
exec {sim_input}<>"$WORK/sim.in"
start sim "$WEB_BIN/cast-receiver-sim" --port 0 --log "$WORK/sim.jsonl" --ping-interval 5
wait_until 10 "the simulator listening" grep -qs '^listening' "$WORK/sim.out"
SIM_PORT=$(awk '/^listening/ { print $3; exit }' "$WORK/sim.out")

PASSWORD="web test password 42"
printf '%s\n' "$PASSWORD" | "$WEB_BIN/cast-gateway" web-password "$WORK/web-password" > "$WORK/web-password.out" \
    || setup_failed "web-password failed: $(cat "$WORK/web-password.out")"
mkdir -p "$WORK/update-progress"
echo 'VERSION="9.8.7-webtest"' > "$WORK/release"
cat > "$WORK/gateway.conf" <<CONF
[device]
host = 127.0.0.1:$SIM_PORT

[console]
device = none

# A secret the config page must never send to the browser.
[cast]
media-credentials = web-test-secret-7f3a


[lirc]
socket = $LIRC_SOCKET

[presets]
1 = http://media.test/film.mp4 | <img src=x onerror="document.title='pwned'">Film & "Friends"
2 = http://media.test/news.mp4 | News

# A/B updates as on an image, with the root helper's files here (web_check.py plays the helper).
[update]
from-fleet = yes
request = $WORK/update-request
progress = $WORK/update-progress/progress
release = $WORK/release

[web]
listen = 127.0.0.1:0
password-file = $WORK/web-password
# Published over mDNS although on loopback (auto would not): avahi here serves only its own lo.
mdns = on
CONF
start gateway "$WEB_BIN/cast-gateway" run --config "$WORK/gateway.conf"
wait_until 20 "the web interface listening" grep -q 'web interface on http://' "$WORK/gateway.err"
URL=$(grep -o 'web interface on http://[^ ]*' "$WORK/gateway.err" | head -n 1 | sed 's/^web interface on //; s:/$::')
wait_until 20 "the gateway connected to the simulator" grep -q '\* IDLE' "$WORK/gateway.err"
say "gateway at $URL, simulator on $SIM_PORT"

set +e
PASSWORD="$PASSWORD" "$VENV/bin/python" "$HERE/web_check.py" --url "$URL" --sim-input "$WORK/sim.in" \
    --sim-out "$WORK/sim.out" --sim-log "$WORK/sim.jsonl" --sim2-log "$WORK/sim2.jsonl" --lirc-socket "$LIRC_SOCKET" --gateway-log "$WORK/gateway.err" --config "$WORK/gateway.conf" --work "$WORK" \
    --browser-log "$WORK/chromedriver.log" --browser-console "$WORK/browser-console.log" | tee "$WORK/check.out"
set -e
counts=$(sed -n 's/^checks: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$WORK/check.out" | tail -n 1)
read -r PASSED FAILED <<<"${counts:-0 1}"

# HTTPS ([web] tls = self-signed): the certificate is made once, kept in the
# state directory (key 0600) and served again after a restart; curl trusts
# exactly that file (--cacert) and checks the names in it.
stop_gateway() {
    local pid
    pid=$(cat "$WORK/gateway.pid")
    kill "$pid" 2>/dev/null || true
    wait_until 30 "the gateway (pid $pid) stopped" sh -c "! kill -0 $pid 2>/dev/null"
    : > "$WORK/gateway.pid"
}
hcheck() {
    local name=$1
    shift
    if "$@" > "$WORK/hcheck.out" 2>&1; then
        PASSED=$((PASSED + 1)); echo "ok   $name"
    else
        FAILED=$((FAILED + 1)); echo "FAIL $name: $(tail -n 3 "$WORK/hcheck.out" | tr '\n' ' ')"
    fi
}
status_of() {   # status_of ARGS...: the HTTP status curl got (000: no HTTP answer)
    curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@" || true
}
fingerprint() { openssl x509 -noout -fingerprint -sha256 | sed 's/^.*=//'; }
start_https_gateway() {
    start gateway "$WEB_BIN/cast-gateway" run --config "$WORK/https.conf"
    wait_until 20 "the web interface listening over HTTPS" grep -q 'web interface on https://' "$WORK/gateway.err"
    HTTPS_URL=$(grep -o 'web interface on https://[^ ]*' "$WORK/gateway.err" | head -n 1 | sed 's/^web interface on //; s:/$::')
}
served_fingerprint() {
    local hostport=${HTTPS_URL#https://}
    openssl s_client -connect "$hostport" < /dev/null 2>/dev/null | fingerprint
}
stop_gateway
STATE=$WORK/state
sed "s|^listen = 127.0.0.1:0$|listen = 127.0.0.1:0\\ntls = self-signed\\nstate-directory = $STATE|; s|^mdns = on$|mdns = off|" \
    "$WORK/gateway.conf" > "$WORK/https.conf"
start_https_gateway
CA=$STATE/web-certificate.pem
hcheck "tls = self-signed made a certificate and logged its fingerprint" grep -q 'made a self-signed HTTPS certificate' "$WORK/gateway.err"
hcheck "its key is mode 600" test "$(stat -c %a "$STATE/web-key.pem" 2>/dev/null)" = 600
hcheck "curl trusting only that certificate gets the login page over HTTPS" \
    test "$(status_of --cacert "$CA" "$HTTPS_URL/login")" = 200
HOST_NAME=$(hostname)
hcheck "the certificate names HOST.local" test "$(status_of --cacert "$CA" \
    --connect-to "$HOST_NAME.local:${HTTPS_URL##*:}:127.0.0.1:${HTTPS_URL##*:}" "https://$HOST_NAME.local:${HTTPS_URL##*:}/login")" = 200
hcheck "without trusting it curl refuses the connection" test "$(status_of "$HTTPS_URL/login")" = 000
hcheck "plain HTTP on the HTTPS port gets no page" test "$(status_of "http://${HTTPS_URL#https://}/login")" != 200
hcheck "a foreign Host over HTTPS gets 421" test "$(status_of --cacert "$CA" -H 'Host: evil.example' "$HTTPS_URL/login")" = 421
(umask 077 && printf '%s' "$PASSWORD" > "$WORK/password")   # not on a command line
hcheck "the session cookie is Secure over HTTPS" sh -c "curl -s -i --max-time 20 --cacert '$CA' --data-urlencode 'password@$WORK/password' \
    '$HTTPS_URL/login' | grep -i '^set-cookie: cg_session=' | grep -q '; Secure'"
FIRST=$(fingerprint < "$CA")
hcheck "the served certificate is the kept one" test "$(served_fingerprint)" = "$FIRST"
stop_gateway
start_https_gateway
hcheck "after a restart no new certificate is made" sh -c "! grep -q 'made a self-signed HTTPS certificate' '$WORK/gateway.err'"
hcheck "after a restart the same certificate (SHA-256 $FIRST) is served" test "$(served_fingerprint)" = "$FIRST"
hcheck "after a restart curl --cacert still gets the page" test "$(status_of --cacert "$CA" "$HTTPS_URL/login")" = 200
if [ -n "$SCREENSHOTS" ]; then
    mkdir -p "$SCREENSHOTS"
    cp "$WORK/web-desktop.png" "$WORK/web-phone.png" "$SCREENSHOTS/" && say "screenshots copied to $SCREENSHOTS"
fi
