#!/usr/bin/env bash
# Builds cast-gateway inside a Debian trixie chroot with Debian's own Swift
# (swiftlang 6.0.3) and trixie's C libraries (libcec 7, libgpiod 2, OpenSSL 3.5),
# proving the code still builds with the oldest toolchain and newest headers we
# support. amd64 runs at full speed; ARCH=arm64 runs under qemu-user (slow).
#
#   deploy/check-trixie-build.sh [CHROOT_DIR]   (default: /var/cache/cast-gateway/trixie-$ARCH)
#
# Needs root and debootstrap. The Debian mirror is taken from this machine's
# apt sources. The chroot is kept and reused: delete it to start over.
set -euo pipefail
ARCH=${ARCH:-amd64}
REPO=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${1:-${CAST_GATEWAY_CACHE:-/var/cache/cast-gateway}/trixie-$ARCH}
PACKAGES="swiftlang libc6-dev libstdc++-14-dev pkg-config libssl-dev libcec-dev libp8-platform-dev libudev-dev libavahi-client-dev libgpiod-dev libmosquitto-dev libmicrohttpd-dev libcurl4-openssl-dev"

mirror() {
    local uri
    uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    [ -n "$uri" ] || uri=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
    [ -n "$uri" ] || { echo "check-trixie-build: cannot find a Debian mirror in /etc/apt" >&2; exit 1; }
    echo "$uri"
}

if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
    command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
    echo "check-trixie-build: bootstrapping trixie ($ARCH) into $ROOT"
    debootstrap --arch="$ARCH" --variant=minbase trixie "$ROOT" "$(mirror)" >/dev/null
fi

mounted=()
cleanup() {
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mountpoint -q "$ROOT/proc" || { mount -t proc proc "$ROOT/proc"; mounted+=("$ROOT/proc"); }
mkdir -p "$ROOT/src"
mountpoint -q "$ROOT/src" || { mount --bind "$REPO" "$ROOT/src"; mounted+=("$ROOT/src"); }
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true

# shellcheck disable=SC2086 # the package list is meant to split into words
if ! chroot "$ROOT" dpkg -s $PACKAGES >/dev/null 2>&1; then
    echo "check-trixie-build: installing $PACKAGES"
    chroot "$ROOT" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive chroot "$ROOT" apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null
fi

chroot "$ROOT" swift --version 2>&1 | head -1
echo "check-trixie-build: libcec $(chroot "$ROOT" pkg-config --modversion libcec), libgpiod $(chroot "$ROOT" pkg-config --modversion libgpiod), OpenSSL $(chroot "$ROOT" pkg-config --modversion openssl)"
# A scratch build directory inside the chroot keeps the host's .build untouched.
# Only the shipped products are built (Debian's swiftlang has no XCTest).
for product in cast-gateway cast-receiver-sim; do
    chroot "$ROOT" sh -c "cd /src && swift build --scratch-path /var/tmp/cast-gateway-build -c release --static-swift-stdlib --product $product 2>&1" | tail -5
done
chroot "$ROOT" sh -c 'ls -la /var/tmp/cast-gateway-build/release/cast-gateway /var/tmp/cast-gateway-build/release/cast-receiver-sim'
echo "check-trixie-build: ok"
