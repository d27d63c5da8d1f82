#!/usr/bin/env bash
# The image's first boot (deploy/image-files/usr/lib/cast-gateway/firstboot,
# firstboot-lib, imager-settings) in throwaway copies of a Debian trixie
# chroot with wpasupplicant (cached: a copy of the clean trixie chroot), fed
# the exact files Raspberry Pi Imager writes (Tests/deploy/imager/: cloud-init
# user-data and network-config, firstrun.sh of Imager 2.0 and 1.8,
# rpi-preseed.toml) and raspberrypi-sys-mods' custom.toml, on a directory
# bound at /boot/firmware. Checks the host name, root's ssh keys, the Wi-Fi
# config (name, key, country, hidden), the time zone, that Imager's files
# and their secrets are gone from the card (a record stays), that
# cmdline.txt loses Imager's systemd.run arguments, and that nothing of
# firstrun.sh was run. Then firstboot.conf's web-password: hashed by the
# worktree's own cast-gateway (.build/debug, run in the chroot with its
# libraries beside it) into /var/lib/cast-gateway/web-password, mode 600,
# owned by the daemon's user, who can read it (check-config as that user,
# with the image's [web] section: off and why before, on after). The last
# line is `firstboot: N passed, M failed`. Needs root; run `swift build` first.
set -euo pipefail
# shellcheck disable=SC2034 # PROG is used by deploy/lib.sh
PROG=firstboot
# shellcheck source=deploy/lib.sh
source "$(dirname "$0")/../../deploy/lib.sh"
case ${1:-} in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
need_root
FIXTURES=$REPO/Tests/deploy/imager
BIN=${CAST_GATEWAY_BIN:-$REPO/.build/debug/cast-gateway}
[ -x "$BIN" ] || die "no $BIN: run swift build first (or set CAST_GATEWAY_BIN)"
BASE=$CACHE/chroot-trixie-amd64-firstboot
ensure_chroot "$BASE" trixie amd64 wpasupplicant
WORK=$(mktemp -d /tmp/cast-gateway-firstboot-test-XXXXXX)
trap 'cleanup_mounts; rm -rf "$WORK"' EXIT
# shellcheck source=Tests/deploy/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh"
K1='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB4XxEH3qvjbrFRZvrdjqvauBJNndFNk/Egf+wQ/PTc9 installer@laptop'
K2='ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBABaSM+zj9m+TPT/METXme0upbH/TdkK60QyFX48WaoujySPE7+0afZ95Pxg7j6auBc64fnNn/UlrnWSZ5n/ghk= backup key'
HASH_MARK=Zmlyc3Rib290LXRlc3QtaGFzaC1ub3QtcmVhbA1   # in every fixture's password hash

# box NAME: a fresh overlay of the chroot at $ROOT with the image's
# first-boot files and the gateway's user, and an empty boot partition at
# $BOOT (bound at /boot/firmware), holding the image's firstboot.conf.
n=0
box() {
    n=$((n + 1))
    local work=$WORK/box$n
    mkdir -p "$work"
    overlay_chroot "$BASE" "$work"
    ROOT=$work/root BOOT=$work/boot
    mkdir -p "$BOOT"
    bind_mount "$BOOT" "$ROOT/boot/firmware"
    chroot_mounts "$ROOT"
    install -d "$ROOT/usr/lib/cast-gateway"
    for file in firstboot firstboot-lib imager-settings; do
        install -m "$(stat -c %a "$REPO/deploy/image-files/usr/lib/cast-gateway/$file")" \
            "$REPO/deploy/image-files/usr/lib/cast-gateway/$file" "$ROOT/usr/lib/cast-gateway/"
    done
    echo cast-gateway > "$ROOT/etc/hostname"
    printf '127.0.0.1\tlocalhost\n127.0.1.1\tcast-gateway\n' > "$ROOT/etc/hosts"
    chroot "$ROOT" useradd --system --no-create-home --user-group cast-gateway
    cp "$REPO/deploy/image-files/boot/firstboot.conf" "$BOOT/"
}
# first_boot: runs firstboot as cast-gateway-firstboot.service does; its log in $WORK/log.
first_boot() {
    chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root /usr/lib/cast-gateway/firstboot /boot/firmware > "$WORK/log" 2>&1 \
        || { cat "$WORK/log" >&2; return 1; }
}
# in_box COMMAND: a shell command in the box.
in_box() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c "$1"; }
wpa() { cat "$ROOT/etc/wpa_supplicant/wpa_supplicant-wlan0.conf"; }
has_line() { grep -qxF -- "$2" "$1"; }
# no_secret TEXT...: no file on the card holds any of them.
no_secret() {
    local text
    for text in "$@"; do ! grep -rqF -- "$text" "$BOOT" || { grep -rlF -- "$text" "$BOOT" >&2; return 1; }; done
}
hex() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }
# wifi_is SSID_FIELD PSK COUNTRY HIDDEN(0/1): the network block and its mode.
wifi_is() {
    local conf=$ROOT/etc/wpa_supplicant/wpa_supplicant-wlan0.conf
    [ "$(stat -c %a "$conf")" = 600 ] || { echo "mode $(stat -c %a "$conf")" >&2; return 1; }
    has_line "$conf" "$(printf '\tssid=%s' "$1")" && has_line "$conf" "$(printf '\tpsk=%s' "$2")" \
        && { [ -z "$3" ] || has_line "$conf" "country=$3"; } \
        && if [ "$4" = 1 ]; then has_line "$conf" "$(printf '\tscan_ssid=1')"; else ! grep -q scan_ssid "$conf"; fi \
        && [ -L "$ROOT/etc/systemd/system/sys-subsystem-net-devices-wlan0.device.wants/wpa_supplicant@wlan0.service" ] \
        || { wpa >&2; return 1; }
}
keys_are() {  # keys_are KEY...: root's authorized_keys, in order, mode 600
    local file=$ROOT/root/.ssh/authorized_keys
    [ "$(stat -c %a "$file")" = 600 ] && [ "$(printf '%s\n' "$@")" = "$(cat "$file")" ] || { cat "$file" >&2; return 1; }
}
timezone_is() { [ "$(cat "$ROOT/etc/timezone")" = "$1" ] && [ "$(readlink "$ROOT/etc/localtime")" = "/usr/share/zoneinfo/$1" ]; }
hostname_is() { [ "$(cat "$ROOT/etc/hostname")" = "$1" ] && grep -qx "127.0.1.1	$1" "$ROOT/etc/hosts"; }

# --- Imager 2.0, cloud-init (init_format cloudinit-rpi) ----------------------
box
cp "$FIXTURES/cloudinit/"* "$BOOT/"
that "cloud-init files (Imager 2.0.11): firstboot runs" first_boot
that "  host name from user-data (over firstboot.conf's default)" hostname_is room-101
that "  user-data's ssh_authorized_keys for root" keys_are "$K1" "$K2"
that "  Wi-Fi from network-config: name, Imager's key, regulatory-domain, hidden" \
    wifi_is '"Hotel Guest"' b80af87fdf1bd08d1d5dd3e54d4769a33c7559921428945986874022368966db DE 1
that "  time zone from user-data" timezone_is Europe/Berlin
that "  user-data, network-config and meta-data are gone from the card" \
    test ! -e "$BOOT/user-data" -a ! -e "$BOOT/network-config" -a ! -e "$BOOT/meta-data"
that "  no Wi-Fi key or password hash left on the card" no_secret b80af87fdf1bd08d1d5dd3e54d4769a33c7559921428945986874022368966db "$HASH_MARK"
that "  the record says what was applied" grep -qx 'hostname = room-101' "$BOOT/imager-settings.applied"
that "  cmdline.txt unchanged (no systemd.run in it)" cmp -s "$FIXTURES/cloudinit/cmdline.txt" "$BOOT/cmdline.txt"
that "  firstboot.conf applied before, as always" test -f "$BOOT/firstboot.conf.applied" -a ! -e "$BOOT/firstboot.conf"
echo "rebooted by hand" > "$ROOT/etc/hostname"
that "  the next boot applies nothing again" eval 'first_boot && [ "$(cat "$ROOT/etc/hostname")" = "rebooted by hand" ]'

# --- Imager 2.0, firstrun.sh (init_format systemd) ---------------------------
box
cp "$FIXTURES/systemd/firstrun.sh" "$FIXTURES/systemd/cmdline.txt" "$BOOT/"
that "firstrun.sh (Imager 2.0.11): firstboot runs" first_boot
that "  host name" hostname_is room-102
that "  enable_ssh -k's keys for root" keys_are "$K1" "$K2"
that "  Wi-Fi: a UTF-8 name (as hex), Imager's key, the country" \
    wifi_is "$(hex 'Café 5')" 341d2e849b96af7b33f27cc3babb7667cd718e6fab71f5627c41efff4556ae6c DE 0
that "  time zone" timezone_is Europe/London
that "  firstrun.sh is gone, no secret left on the card" \
    eval '[ ! -e "$BOOT/firstrun.sh" ] && no_secret 341d2e849b96af7b33f27cc3babb7667cd718e6fab71f5627c41efff4556ae6c "$HASH_MARK"'
that "  cmdline.txt without Imager's systemd.run arguments, as before Imager" \
    cmp "$FIXTURES/systemd/cmdline.txt.expected" "$BOOT/cmdline.txt"
that "  nothing of firstrun.sh was run (no wpa_supplicant.conf, no keyboard file, no user)" \
    eval '[ ! -e "$ROOT/etc/wpa_supplicant/wpa_supplicant.conf" ] && [ ! -e "$ROOT/etc/default/keyboard" ] && ! chroot "$ROOT" getent passwd installer'

# --- Imager 1.8, firstrun.sh -------------------------------------------------
box
cp "$FIXTURES/systemd-1.8.5/firstrun.sh" "$FIXTURES/systemd-1.8.5/cmdline.txt" "$BOOT/"
that "firstrun.sh (Imager 1.8.5): firstboot runs" first_boot
that "  host name, key, time zone" eval 'hostname_is room-103 && keys_are "$K1" && timezone_is Europe/London'
that "  Wi-Fi: hidden, key, country" wifi_is '"Lobby"' 0f4899285c886c66fcedfd7105330963e998ec6387cedeb57486534f31a9edaf GB 1
that "  cmdline.txt restored, firstrun.sh gone" \
    eval 'cmp "$FIXTURES/systemd-1.8.5/cmdline.txt.expected" "$BOOT/cmdline.txt" && [ ! -e "$BOOT/firstrun.sh" ]'

# --- Imager 2.0.11, rpi-preseed.toml ------------------------------------------
box
cp "$FIXTURES/rpi-preseed/rpi-preseed.toml" "$BOOT/"
that "rpi-preseed.toml (Imager 2.0.11): firstboot runs" first_boot
that "  host name, keys (a multi-line array), time zone" \
    eval 'hostname_is room-104 && keys_are "$K1" "$K2" && timezone_is Europe/Paris'
that "  Wi-Fi: Imager's key, country" wifi_is '"Staff Net"' acd42c0f1a713bb90c6a8f86b8ee3c6bf6f722634f88e576b2172812a00e4319 FR 0
that "  the file and its secrets are gone" \
    eval '[ ! -e "$BOOT/rpi-preseed.toml" ] && no_secret acd42c0f1a713bb90c6a8f86b8ee3c6bf6f722634f88e576b2172812a00e4319 "$HASH_MARK"'

# --- raspberrypi-sys-mods' custom.toml: a passphrase, hashed on the box ---------
box
cp "$FIXTURES/custom-toml/custom.toml" "$BOOT/"
that "custom.toml: firstboot runs" first_boot
that "  host name, key, time zone" eval 'hostname_is room-105 && keys_are "$K2" && timezone_is Europe/Madrid'
# shellcheck disable=SC2034 # used by the eval below
psk=$(in_box "wpa_passphrase 'Pool Bar' pool-bar-passphrase" | sed -n 's/^[[:space:]]*psk=//p')
that "  Wi-Fi: the passphrase's derived key only, hidden, the country upper-cased" \
    eval 'wifi_is "\"Pool Bar\"" "$psk" ES 1 && ! grep -q pool-bar-passphrase "$ROOT/etc/wpa_supplicant/wpa_supplicant-wlan0.conf"'
that "  the passphrase and the user's password are gone from the card" no_secret pool-bar-passphrase not-kept-on-the-box

# --- nothing on the card -----------------------------------------------------
box
rm "$BOOT/firstboot.conf"
echo "console=tty0 rootwait" > "$BOOT/cmdline.txt"
that "no firstboot.conf and no Imager file: runs" first_boot
that "  and changes nothing" eval '[ "$(cat "$ROOT/etc/hostname")" = cast-gateway ] && [ ! -e "$ROOT/root/.ssh/authorized_keys" ] \
    && [ ! -e "$ROOT/etc/wpa_supplicant/wpa_supplicant-wlan0.conf" ] && [ "$(ls "$BOOT")" = cmdline.txt ]'

# --- firstboot.conf's web-password ---------------------------------------------
# with_binary: the worktree's cast-gateway as the box's /usr/bin/cast-gateway,
# with the libraries it needs that trixie lacks or has in other versions
# beside it ($ORIGIN is in its run path).
with_binary() {
    install -d "$ROOT/opt/cast-gateway-test"
    cp "$BIN" "$ROOT/opt/cast-gateway-test/cast-gateway"
    ldd "$BIN" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | while read -r lib; do
        case $(basename "$lib") in libc.so.*|libm.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*|libpthread.so.*|libdl.so.*|librt.so.*) continue ;; esac
        cp -L "$lib" "$ROOT/opt/cast-gateway-test/"
    done
    ln -sf /opt/cast-gateway-test/cast-gateway "$ROOT/usr/bin/cast-gateway"
}
box
with_binary
that "the worktree's cast-gateway runs in the chroot" in_box "cast-gateway --version > /dev/null"
# The image's config: its [web] section (deploy/lib.sh image_web_section).
{ printf '[device]\nhost = 127.0.0.1\n'; image_web_section; } > "$ROOT/tmp/gateway.conf"
chmod 644 "$ROOT/tmp/gateway.conf"
# web_line: check-config's web line, run as the daemon's user.
web_line() {
    in_box "setpriv --reuid=cast-gateway --regid=cast-gateway --init-groups cast-gateway check-config /tmp/gateway.conf" 2>&1 | grep '^  web:' || true
}
# shellcheck disable=SC2034 # used by the evals below
PW=/var/lib/cast-gateway/web-password
that "  before: check-config (as the daemon's user) says in one line that there is no web interface, and why" \
    eval '[ "$(web_line)" = "  web: off: there is no password file $PW; create it with: cast-gateway web-password $PW (on the image: firstboot.conf'"'"'s web-password)" ]'
sed -i 's/^web-password =.*/web-password = "front desk 2417"/' "$BOOT/firstboot.conf"
that "  the image's firstboot.conf has a 'web-password =' line" grep -q '^web-password = "front desk 2417"' "$BOOT/firstboot.conf"
that "firstboot.conf with web-password: firstboot runs" first_boot
that "  it says so" grep -q "web interface password set" "$WORK/log"
that "  the hash file: mode 600, owned by cast-gateway, a PBKDF2 hash, not the password" \
    eval '[ "$(chroot "$ROOT" stat -c "%U:%G %a" $PW)" = "cast-gateway:cast-gateway 600" ] && grep -q "^pbkdf2-sha256\\$" "$ROOT$PW" && ! grep -q "front desk" "$ROOT$PW"'
that "  the record says (applied, removed from this card); the password is nowhere on the card" \
    eval 'grep -qx "web-password = (applied, removed from this card)" "$BOOT/firstboot.conf.applied" && no_secret "front desk"'
that "  after: check-config as the daemon's user reads the hash: the web interface is on" \
    eval '[ "$(web_line)" = "  web: http://0.0.0.0:8080/ (password hash in $PW)" ]'
box
with_binary
sed -i 's/^web-password =.*/web-password = Xq7z/' "$BOOT/firstboot.conf"
that "a web-password under 8 characters: firstboot still runs" first_boot
that "  no hash, the record says why, the password is gone from the card" \
    eval '[ ! -e "$ROOT$PW" ] && grep -q "^web-password = (NOT applied: the password is shorter than 8 characters" "$BOOT/firstboot.conf.applied" && no_secret Xq7z'

echo "firstboot: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
