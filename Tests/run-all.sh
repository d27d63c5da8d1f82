#!/usr/bin/env bash
# Runs every check the project has, in order, and fails on the first failure:
#   1. swift build + swift test: unit tests, and integration tests with real
#      processes over TLS on loopback (including pychromecast from PyPI);
#   2. the fuzzers (Fuzz/run.sh): every target for FUZZ_SECONDS each (default 20);
#   3. the fault matrix: the receiver in a network namespace behind a faulty
#      link, and a misbehaving receiver (Tests/faults);
#   4. Home Assistant 2024.3 from PyPI reading the gateway's MQTT discovery
#      on a real mosquitto (Tests/homeassistant), then the web interface in
#      headless Chromium (Tests/web, with the same venv's Selenium); deploy/rollout
#      over MQTT against real gateways (Tests/deploy/rollout.sh);
#   5. the virtual board: real kernel IR, CEC and GPIO devices in qemu (Tests/board);
#   6. deployment: packages installed in clean chroots, lintian, the unit's
#      security score, shellcheck, flashing on loop devices (Tests/deploy/run.sh);
#      The trixie packages are the Debian trixie build with Swift 6.0.3.
# Ends with "summary: N passed, M failed" (test cases and board scenarios).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
LOG=$REPO/build/test-output.log
mkdir -p "$REPO/build"

# Safety net: every test stops the processes it starts by pid, but a test
# process that crashes cannot. Kill whatever still runs from this run: every
# process it starts inherits this marker, so another run's daemons on the
# same machine (a second checkout's tests) are never touched.
CAST_GATEWAY_TEST_RUN="$$-$(date +%s%N)"
export CAST_GATEWAY_TEST_RUN
reap_strays() {
    local entry pid strays=""
    for entry in /proc/[0-9]*; do
        pid=${entry#/proc/}
        [ "$pid" = "$$" ] && continue
        if grep -qzx "CAST_GATEWAY_TEST_RUN=$CAST_GATEWAY_TEST_RUN" "$entry/environ" 2>/dev/null; then
            strays="$strays $pid"
        fi
    done
    if [ -n "$strays" ]; then
        echo "run-all: killing processes left behind by a test:$strays" >&2
        # shellcheck disable=SC2086 # one pid per word
        kill -9 $strays 2>/dev/null || true
    fi
}
trap reap_strays EXIT

# Each stage's wall time, printed as it ends and all together at the end, so
# a slow CI run shows where its time went.
STAGE_NAME="" STAGE_START=$SECONDS TIMES=""
begin_stage() {
    end_stage
    STAGE_NAME=$1 STAGE_START=$SECONDS
    echo "== $1"
}
end_stage() {
    [ -n "$STAGE_NAME" ] || return 0
    local took=$((SECONDS - STAGE_START))
    echo "-- $STAGE_NAME took $took s"
    TIMES="$TIMES${TIMES:+, }$STAGE_NAME $took s"
    STAGE_NAME=""
}

begin_stage build
swift build --build-tests 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\]' || true
swift build --build-tests >/dev/null   # fail here if the build failed

begin_stage tests
set +e
swift test --skip-build 2>&1 | tee "$LOG" | grep -E "error:|failed \(|^Test Suite 'All tests'|Executed [0-9]+ tests?, with"
status=${PIPESTATUS[0]}
set -e
executed=$(grep -E "^\s*Executed [0-9]+ tests?, with" "$LOG" | tail -1 | sed -E 's/.*Executed ([0-9]+) tests?, with ([0-9]+) failures?.*/\1 \2/')
read -r total failures <<<"${executed:-0 0}"
reap_strays
if [ "$status" -ne 0 ] || [ "$total" -eq 0 ]; then
    # A crash (a signal) leaves no XCTest line to show: print the test that
    # was running and the Swift runtime's backtrace of the crashed thread.
    if grep -q '^\*\*\* Program crashed' "$LOG"; then
        echo "run-all: the test process crashed during: $(grep -E "^Test Case '.*' started" "$LOG" | tail -1)"
        sed -n '/^\*\*\* Signal/,/^Registers:/p' "$LOG" | grep -v '^Registers:' | head -120
    fi
    echo "summary: $((total - failures)) passed, $failures failed"
    echo "run-all: swift test failed (exit $status); full output in $LOG" >&2
    exit 1
fi

begin_stage "fuzz ($FUZZ_SECONDS s per target)"
bash "$REPO/Fuzz/run.sh" "$FUZZ_SECONDS"
# Targets built by their own scripts (their modules need OpenSSL or stand alone).
bash "$REPO/Fuzz/run-device-auth.sh" "$FUZZ_SECONDS"
bash "$REPO/Fuzz/run-mqtt-command.sh" "$FUZZ_SECONDS"
bash "$REPO/Fuzz/run-media-path.sh" "$FUZZ_SECONDS"

# stage NAME PREFIX COMMAND...: runs a script whose last line is
# "PREFIX: N passed, M failed", adds its counts, and stops on a failure.
stage() {
    local name=$1 prefix=$2 status counts stage_passed stage_failed
    shift 2
    begin_stage "$name"
    set +e
    "$@" 2>&1 | tee "$REPO/build/$prefix-output.log"
    status=${PIPESTATUS[0]}
    set -e
    counts=$(sed -n "s/^$prefix: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p" "$REPO/build/$prefix-output.log" | tail -1)
    read -r stage_passed stage_failed <<<"${counts:-0 1}"
    total=$((total + stage_passed + stage_failed))
    failures=$((failures + stage_failed))
    if [ "$status" -ne 0 ]; then
        end_stage
        echo "stage times: $TIMES"
        echo "summary: $((total - failures)) passed, $failures failed"
        exit 1
    fi
}

# The receiver in its own network namespace: link down 30 s, delay and loss,
# an address move over mDNS, and the receiver faults (Tests/faults/run.sh).
stage "fault matrix" faults bash "$REPO/Tests/faults/run.sh"
# A real Home Assistant and mosquitto on 127.0.0.1: the device and entities HA
# makes of the discovery, commands from HA, availability, the device page in
# headless Chromium (Tests/homeassistant).
stage "home assistant" homeassistant bash "$REPO/Tests/homeassistant/run.sh"
# deploy/rollout over MQTT: a real mosquitto and three real gateways on
# 127.0.0.1, the boxes' root side played at the request file (Tests/deploy/rollout.sh).
stage "rollout" rollout bash "$REPO/Tests/deploy/rollout.sh"
# The web interface in headless Chromium (Selenium from the venv the Home
# Assistant stage builds): login, CSRF, lockout, every control reaching the
# simulator, the live update, a hostile title, the config editor, the kiosk,
# the logs, the inputs (a real lircd), the device picker and the page's mDNS
# record (a private avahi-daemon on its own loopback), foreign Host headers
# refused (DNS rebinding), and HTTPS with a kept self-signed certificate (Tests/web).
stage "web interface" web bash "$REPO/Tests/web/run.sh"
stage "virtual board" board bash "$REPO/Tests/board/run.sh"
# Packages for trixie amd64/arm64 and bookworm amd64 installed in clean
# chroots, lintian, the unit's security score, shellcheck, flashing on loop devices.
stage "deploy" deploy bash "$REPO/Tests/deploy/run.sh"
# The qemu-arm64 image boot (Tests/deploy/image-boot.sh) is one separate
# command: its first run builds a 15-minute arm64 base system (see README).

# The Debian trixie build with Swift 6.0.3 is the deploy stage's: its trixie
# packages are built with Debian's swiftlang 6.0.3 against trixie's libraries
# (it checks the compiler version). deploy/check-trixie-build.sh does the same
# build on its own, outside the test command.

end_stage
echo "stage times: $TIMES"
echo "summary: $((total - failures)) passed, $failures failed"
