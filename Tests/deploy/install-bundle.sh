#!/usr/bin/env bash
# deploy/install --bundle without a box: its arguments, --dry-run, and the
# whole sequence against a fake box. The fake is an `ssh` first on PATH that
# answers the commands deploy/install sends from files in a directory: the
# boot id, system.conf's compatible, the release, the update report, rauc
# info/install and the reboot (which changes the boot id and, as the box's
# commit-slot would, writes the report the case asks for). Cases: a box that
# commits the update, one that falls back (report `failed`), one that is
# unhealthy until the timeout, one whose rauc install fails, one that is not
# an A/B image. Files only; the last line is `install-bundle: N passed, M
# failed`. The qemu VM drives the real thing: Tests/deploy/update-boot.sh.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
case ${1:-} in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
WORK=$(mktemp -d /tmp/cast-gateway-install-bundle-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=Tests/deploy/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh"
# expect NAME STATUS PATTERN [install args...]: exit status and a line of its output.
expect() {
    local name=$1 want=$2 pattern=$3 got=0
    shift 3
    PATH=$WORK/bin:$PATH CAST_GATEWAY_INSTALL_POLL=0.2 bash "$REPO/deploy/install" "$@" > "$WORK/out" 2>&1 || got=$?
    if [ "$got" = "$want" ] && grep -qE -- "$pattern" "$WORK/out"; then
        ok "$name"
    else
        sed 's/^/    /' "$WORK/out" >&2
        bad "$name: exit $got (want $want), output without /$pattern/"
    fi
}
head -c 4096 /dev/urandom > "$WORK/update.raucb"

# The fake box. $FAKE/case says what the reboot leads to.
mkdir -p "$WORK/bin" "$WORK/box"
cat > "$WORK/bin/ssh" <<'SSH'
#!/bin/bash
# A fake box for deploy/install: the last argument is the remote command.
box=${FAKE_BOX:?}
echo "$*" >> "$box/calls"
command=${*: -1}
case $command in
    *"/etc/rauc/system.conf ]"*)
        [ -f "$box/ab" ] || { echo no-rauc; exit 0; }
        echo "$(cat "$box/boot_id") cast-gateway-qemu-arm64 1.0" ;;
    *"cat > /data/"*) cat > "$box/bundle" ;;
    *"rauc info"*) echo "RAUC_MF_VERSION='2.0'" ;;
    *"rauc install"*)
        [ "$(cat "$box/case")" != install-fails ] || { echo "LastError: Failed mounting bundle"; exit 1; }
        echo "  0% Installing"; echo "100% Installing done."; echo "Installing \`/data/cast-gateway-update.raucb' succeeded" ;;
    *"systemctl reboot"*)
        echo "$RANDOM-after" > "$box/boot_id"
        case $(cat "$box/case") in
            good) printf 'state=updated\nversion=2.0\nrunning=2.0\nprevious=1.0\ntime=now\n' > "$box/report" ;;
            falls-back) printf 'state=failed\nversion=2.0\nrunning=1.0\ntime=now\n' > "$box/report" ;;
            unhealthy) printf 'state=unhealthy\nversion=2.0\nrunning=2.0\ntime=now\n' > "$box/report" ;;
        esac
        exit 255 ;;
    *boot_id*) cat "$box/boot_id" ;;
    *"/var/lib/cast-gateway/update/report"*) cat "$box/report" 2>/dev/null || true ;;
    *"/proc/cmdline"*) echo B ;;
    *) echo "fake ssh: unexpected command: $command" >&2; exit 99 ;;
esac
SSH
chmod +x "$WORK/bin/ssh"
export FAKE_BOX=$WORK/box
box() {  # box CASE [ab]: a fresh fake box
    rm -rf "$WORK/box"; mkdir -p "$WORK/box"
    echo "$1" > "$WORK/box/case"
    echo before > "$WORK/box/boot_id"
    printf 'state=updated\nversion=1.0\nrunning=1.0\ntime=earlier\n' > "$WORK/box/report"
    [ "${2:-ab}" != ab ] || touch "$WORK/box/ab"
}

# Arguments.
expect "--help describes --bundle" 0 "--bundle FILE" --help
expect "no host" 64 "name at least one HOST" --bundle "$WORK/update.raucb"
expect "--bundle and --package together" 64 "not both" --bundle "$WORK/update.raucb" --package "$WORK/update.raucb" box1
expect "--timeout not a number" 64 "whole seconds" --bundle "$WORK/update.raucb" --timeout soon box1
expect "a bundle that is not there" 1 "no bundle file" --bundle "$WORK/missing.raucb" box1
box good
expect "--dry-run names each box's steps" 0 "install: root@box2: would run rauc install" --dry-run --bundle "$WORK/update.raucb" box1 root@box2
[ ! -e "$WORK/box/calls" ] && ok "--dry-run connects to no box" || bad "--dry-run ran ssh: $(cat "$WORK/box/calls")"

# The sequence.
box good
expect "a box that commits the update: healthy, 1 of 1" 0 "install: root@box1: healthy: 2.0 committed in slot B" --bundle "$WORK/update.raucb" box1
grep -q "up to date" "$WORK/out" && cmp -s "$WORK/update.raucb" "$WORK/box/bundle" \
    && ok "the bundle reached the box byte for byte; the summary counts it" || bad "bundle copy or summary"
grep -q "rauc: 100% Installing done" "$WORK/out" && ok "RAUC's progress is shown" || bad "no RAUC progress in the output"
box falls-back
expect "a box that fell back: failed, named in the summary" 1 "failed: box1$" --bundle "$WORK/update.raucb" box1
grep -q "the update to 2.0 failed: U-Boot went back" "$WORK/out" && ok "the fall back is reported with the version" || bad "no fall-back message"
box unhealthy
expect "a box that stays unhealthy: fails at the timeout" 1 "not healthy on 2.0 after 1 s" --bundle "$WORK/update.raucb" --timeout 1 box1
box install-fails
expect "rauc install fails: the box keeps its slot, no reboot" 1 "rauc install failed" --bundle "$WORK/update.raucb" box1
! grep -q reboot "$WORK/box/calls" && ok "no reboot after a failed install" || bad "rebooted after a failed install"
box good plain
expect "a box without RAUC: told to use --package" 1 "not an A/B image" --bundle "$WORK/update.raucb" box1
echo "install-bundle: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
