#!/usr/bin/env bash
# The image's factory reset (deploy/image-files/usr/lib/cast-gateway/
# factory-reset) on directories standing in for the boot partition, the
# state directory and the image's config: nothing happens without the
# `factory-reset` file; with it the state is wiped (the directory itself
# kept, and the web password's hash in it), the image's config restored (the edited one kept as
# cast-gateway.conf.before-reset), firstboot.conf.applied left alone, and the
# file renamed factory-reset.done, so a second boot changes nothing. Files
# only; the qemu VM boots a reset in Tests/deploy/update-boot.sh. The last
# line is `factory-reset: N passed, M failed`.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
case ${1:-} in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
RESET=$REPO/deploy/image-files/usr/lib/cast-gateway/factory-reset
WORK=$(mktemp -d /tmp/cast-gateway-factory-reset-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=Tests/deploy/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh"
box() {  # a box that was used: an edited config, state, firstboot applied
    rm -rf "${WORK:?}/boot" "${WORK:?}/state" && mkdir -p "$WORK/boot" "$WORK/state/update"
    printf '[device]\nname = Image default\n' > "$WORK/image.conf"
    printf '[device]\nname = Room 214 TV\n' > "$WORK/boot/cast-gateway.conf"
    printf 'hostname = room-214\nwifi-psk = (applied, removed from this card)\n' > "$WORK/boot/firstboot.conf.applied"
    echo '{"item":3}' > "$WORK/state/kiosk-state.json"
    echo 'state=failed' > "$WORK/state/update/report"
    touch "$WORK/state/.hidden"
    echo 'pbkdf2-sha256$test' > "$WORK/state/web-password"
}
# shellcheck disable=SC2120 # called with an argument through `that`
reset() { "$RESET" "$WORK/boot" "$WORK/state" "${1:-$WORK/image.conf}" > "$WORK/log" 2>&1; }

box
that "without the file: runs and changes nothing" reset
that "  the state and the config are untouched" \
    test -f "$WORK/state/kiosk-state.json" -a -f "$WORK/state/update/report" -a ! -e "$WORK/boot/factory-reset.done"
that "  and it says nothing" test ! -s "$WORK/log"
grep -q 'Room 214' "$WORK/boot/cast-gateway.conf" && ok "  the edited config stays" || bad "  the edited config changed"

box
echo "reset by the front desk" > "$WORK/boot/factory-reset"
that "with the file: runs" reset
that "  the state directory holds nothing but the web password's hash (hidden files gone too), and is still there" \
    test -d "$WORK/state" -a "$(ls -A "$WORK/state")" = web-password
that "  the web password's hash is kept" grep -qx 'pbkdf2-sha256$test' "$WORK/state/web-password"
that "  cast-gateway.conf is the image's" cmp -s "$WORK/boot/cast-gateway.conf" "$WORK/image.conf"
grep -q 'Room 214' "$WORK/boot/cast-gateway.conf.before-reset" && ok "  the edited config is kept as cast-gateway.conf.before-reset" \
    || bad "  no cast-gateway.conf.before-reset"
that "  firstboot.conf.applied (the network settings' record) is kept" grep -q room-214 "$WORK/boot/firstboot.conf.applied"
that "  the file is now factory-reset.done, with its text and the time" \
    grep -q 'reset by the front desk' "$WORK/boot/factory-reset.done"
that "  no factory-reset is left" test ! -e "$WORK/boot/factory-reset"
grep -q "wiped the gateway's state" "$WORK/log" && ok "  it says what it did" || { cat "$WORK/log" >&2; bad "  no log of the reset"; }
printf '[device]\nname = Room 214 TV\n' > "$WORK/boot/cast-gateway.conf"
echo '{"item":1}' > "$WORK/state/kiosk-state.json"
reset
that "the next boot changes nothing (applied once)" \
    test -f "$WORK/state/kiosk-state.json" -a "$(grep -c Room "$WORK/boot/cast-gateway.conf")" = 1

box
touch "$WORK/boot/factory-reset"
that "an image without its config: the state is wiped all the same" reset "$WORK/no-such.conf"
that "  and the config is left as it is" grep -q 'Room 214' "$WORK/boot/cast-gateway.conf"
that "  it says so" grep -q "cast-gateway.conf is left as it is" "$WORK/log"
echo "factory-reset: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
