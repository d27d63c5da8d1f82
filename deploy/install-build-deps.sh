#!/usr/bin/env bash
# Installs what building, testing and packaging cast-gateway need on Debian /
# Raspberry Pi OS (bookworm or trixie). Run as root. The Swift toolchain itself
# must already be installed (swift.org toolchain, or Debian trixie's swiftlang).
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
    echo "install-build-deps: run as root (sudo $0)" >&2
    exit 1
fi
if ! command -v swift >/dev/null; then
    echo "install-build-deps: no 'swift' on PATH; install a Swift 6 toolchain first (trixie: apt-get install swiftlang)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
    pkg-config libssl-dev libavahi-client-dev \
    avahi-daemon avahi-utils dbus util-linux \
    liblirc-dev lirc libgpiod-dev libcec-dev libp8-platform-dev libudev-dev \
    qemu-system-x86 busybox-static v4l-utils ir-keytable cpio kmod make gcc \
    linux-headers-amd64 \
    libmosquitto-dev mosquitto mosquitto-clients openssl \
    libmicrohttpd-dev libcurl4-openssl-dev curl ffmpeg lighttpd \
    python3 python3-venv python3-pip \
    binutils debootstrap ca-certificates >/dev/null
echo "install-build-deps: ok ($(swift --version 2>/dev/null | head -1))"
