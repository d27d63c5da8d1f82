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
# One package a line, sorted, with what needs it.
PACKAGES=(
    arch-test             # mmdebstrap: checks that arm64 binaries run (qemu-user)
    avahi-daemon          # mDNS discovery (tests run a loopback-only daemon)
    avahi-utils           # avahi-publish/browse in discovery tests
    binfmt-support        # registers qemu-user for arm64 chroots
    binutils              # strip, readelf
    busybox-static        # the virtual board's initramfs
    ca-certificates       # https mirrors
    chromium              # Tests/homeassistant: the device page in HA's frontend, headless, for its screenshot
    chromium-driver       # Tests/homeassistant: Selenium drives chromium through it
    cpio                  # the virtual board's initramfs
    curl                  # the media server tests (real HTTP clients)
    dbus                  # avahi needs the system bus
    debootstrap           # trixie chroots (deploy/check-trixie-build.sh, deploy/package)
    device-tree-compiler  # deploy/image compiles the gpio-ir overlay
    dosfstools            # deploy/image: the FAT boot partition
    dpkg-dev              # dpkg-shlibdeps for bookworm packages
    e2fsprogs             # deploy/image: mkfs.ext4 -d
    fakeroot              # deploy/package: dpkg-deb
    fdisk                 # deploy/image: sfdisk
    ffmpeg                # kiosk and media tests make small MP4 files
    file                  # deploy/package checks the binary's architecture
    gcc                   # the virtual board's test GPIO module
    iproute2              # the fault matrix: network namespaces, veth, tc
    ir-keytable           # IR keymaps on the virtual board
    jq                    # deploy/rollout reads the gateways' MQTT state (Tests/deploy/rollout.sh)
    kmod                  # depmod for the virtual board
    libavahi-client-dev   # Discovery
    libcec-dev            # RemoteInput (CEC)
    libcurl4-openssl-dev  # the simulator fetches media (--fetch-media)
    libgpiod-dev          # StatusOutput (LEDs)
    liblirc-dev           # lirc tools and headers for the LIRC tests (the gateway connects lircd itself)
    libmicrohttpd-dev     # MediaServer
    libmosquitto-dev      # Fleet (MQTT)
    libp8-platform-dev    # libcec.pc requires it
    libssl-dev            # TLS
    libudev-dev           # libcec.pc requires it
    libglib2.0-bin        # gdbus: Tests/deploy/bundle.sh waits for RAUC's bus name
    libubootenv-tool      # fw_printenv/fw_setenv: RAUC's U-Boot backend in Tests/deploy/bundle.sh
    lighttpd              # bench/media-server.sh compares against it
    lintian               # Tests/deploy checks the packages
    linux-headers-amd64   # the virtual board's test GPIO module (headers of Debian's current kernel)
    lirc                  # lircd in tests
    make                  # the virtual board's test GPIO module
    mmdebstrap            # deploy/image builds the root file system
    mosquitto             # MQTT tests run a loopback broker
    mosquitto-clients     # mosquitto_sub/pub in MQTT tests
    mtools                # deploy/image: files onto the FAT partition without mounting
    openssh-client        # deploy/install; the image boot test logs in
    openssl               # device-auth tests make a PKI; TLS test certificates
    pkg-config            # C library flags
    procps                # the fault matrix and soak read processes (ps, pgrep)
    python3               # interop tests, the image boot test's serial console
    python3-pip           # pychromecast interop tests
    python3-venv          # pychromecast interop tests
    qemu-system-arm       # the image boot test (qemu-system-aarch64 -M virt)
    qemu-system-x86       # the virtual board
    qemu-user-static      # arm64 chroots: install tests, dpkg-shlibdeps, mmdebstrap
    rauc                  # deploy/bundle builds and checks bundles; Tests/deploy/bundle.sh installs them
    rsync                 # deploy/package keeps a content-synced source copy (incremental builds)
    shellcheck            # Tests/deploy lints every script
    squashfs-tools        # mksquashfs: RAUC bundles
    stress-ng             # Tests/stress.sh keeps both cores busy
    u-boot-tools          # mkimage: deploy/uboot/boot.cmd as boot.scr
    udev                  # systemd-udevd for the udev rules scenario on the virtual board
    util-linux            # losetup, lsblk, setpriv
    v4l-utils             # cec-ctl, ir-ctl on the virtual board
)
apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
echo "install-build-deps: ok ($(swift --version 2>/dev/null | head -1))"
