#!/bin/bash
# udev/60-cast-gateway.rules applied by a real systemd-udevd to the virtual
# board's devices: vivid's /dev/cec*, rc-loopback's /dev/lirc0 and input
# device, the test GPIO chip and the serial ports. Checks owner, group, mode
# and the stable links, then opens each device as an unprivileged user that
# has only the service's groups.
source "$(dirname "$0")/../lib.sh"
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
UDEVD=$(command -v systemd-udevd || echo /lib/systemd/systemd-udevd)
[ -x "$UDEVD" ] || fail "systemd-udevd not installed on the host: apt-get install udev"

# The host's /etc is read-only here: add the gpio group (the package's
# postinst creates it on a board) in a private copy of /etc/group.
cp /etc/group /tmp/group
if ! grep -q '^gpio:' /tmp/group; then
    gid=900; while cut -d: -f3 /tmp/group | grep -qx "$gid"; do gid=$((gid + 1)); done
    echo "gpio:x:$gid:" >> /tmp/group
fi
mount --bind /tmp/group /etc/group
# Only the rules under test and Debian's defaults: /run/udev/rules.d takes
# precedence over the read-only /etc and /usr/lib directories.
mkdir -p /run/udev/rules.d
cp "$REPO/udev/60-cast-gateway.rules" /run/udev/rules.d/
udevadm verify /run/udev/rules.d/60-cast-gateway.rules 2>/dev/null || true   # systemd >= 254 only

"$UDEVD" > /tmp/udevd.log 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do [ -S /run/udev/control ] && break; sleep 0.1; done
[ -S /run/udev/control ] || { cat /tmp/udevd.log; fail "systemd-udevd did not start"; }
udevadm trigger --action=add --subsystem-match=cec --subsystem-match=lirc --subsystem-match=input \
    --subsystem-match=gpio --subsystem-match=tty --subsystem-match=rc
udevadm settle --timeout=60 || fail "udevadm settle timed out"
grep -i "gpio\|cast-gateway" /tmp/udevd.log && fail "udevd complained about the rules (above)"

setup_rc_loopback > /dev/null
gpiochip=$(ls /dev/gpiochip* | head -1)
echo "devices: /dev/cec0 /dev/cec1 $lirc_node $event_node $gpiochip /dev/ttyS0"

# expect NODE OWNER GROUP MODE
expect() {
    local actual
    actual=$(stat -L -c '%U %G %a' "$1") || fail "$1 missing"
    [ "$actual" = "$2 $3 $4" ] || fail "$1 is '$actual', expected '$2 $3 $4'"
    echo "ok: $1 $actual"
}
expect /dev/cec0 root video 660
expect /dev/cec1 root video 660
expect "$lirc_node" root video 660
expect "$event_node" root input 660
expect "$gpiochip" root gpio 660
expect /dev/ttyS0 root dialout 660

# expect_link LINK TARGET
expect_link() {
    [ -L "$1" ] || fail "no link $1"
    [ "$(readlink -f "$1")" = "$(readlink -f "$2")" ] || fail "$1 points to $(readlink -f "$1"), expected $2"
    echo "ok: $1 -> $(readlink "$1")"
}
expect_link /dev/cast-gateway/cec /dev/cec0
expect_link /dev/cast-gateway/ir "$event_node"
# The CEC adapters' remote-control passthrough devices are rc devices too, but
# only the IR receiver gets the ir link.
[ "$(find /dev/cast-gateway -name 'ir*' | wc -l)" = 1 ] || fail "more than one ir link"

# An unprivileged user with only the service's groups opens every device;
# without them it cannot.
groups=$(for g in video input dialout gpio; do getent group "$g" | cut -d: -f3; done | paste -sd,)
as_service() { setpriv --reuid=65534 --regid=65534 --groups="$groups" "$@"; }
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
for node in /dev/cast-gateway/cec "$lirc_node" /dev/cast-gateway/ir "$gpiochip" /dev/ttyS0; do
    as_service sh -c "exec 3<>'$node'" 2>/dev/null || as_service sh -c "exec 3<'$node'" || fail "the service's groups cannot open $node"
    as_nobody sh -c "exec 3<'$node'" 2>/dev/null && fail "$node is open to everybody"
    echo "ok: opened $node with the service's groups only"
done
# The link the gateway reads IR from works end to end.
ir_text=$(as_service timeout 5 sh -c "exec 3</dev/cast-gateway/ir; sleep 1; echo pressed" & sleep 0.3; send_ir 0x0408; wait)
[ "$ir_text" = pressed ] || fail "could not hold /dev/cast-gateway/ir open while a key was sent"
echo "PASS: udev rules give the service's groups its devices and the stable links"
