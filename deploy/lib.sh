# Shared by the deploy scripts and Tests/deploy (sourced, not run).
# Caches live under $CAST_GATEWAY_CACHE (default /var/cache/cast-gateway):
#   chroot-<suite>-<arch>/   clean minbase chroots (install tests, image bases)
#   trixie-amd64/            the build chroot (deploy/check-trixie-build.sh)
#   sysroot-trixie-arm64/    arm64 headers and libraries for cross-compiling
#   apt-<suite>-<arch>/      apt state and downloaded .debs for the above
# shellcheck shell=bash

CACHE=${CAST_GATEWAY_CACHE:-/var/cache/cast-gateway}
DEPLOY_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$DEPLOY_DIR/.." && pwd)
PROG=${PROG:-$(basename "$0")}

die() { echo "$PROG: $*" >&2; exit 1; }
note() { echo "$PROG: $*" >&2; }

# need COMMAND PACKAGE: fail naming the package when a command is missing.
need() {
    command -v "$1" >/dev/null 2>&1 || die "$1 not installed: apt-get install $2"
}

need_root() {
    [ "$(id -u)" -eq 0 ] || die "needs root (chroots, mounts): run it with sudo"
}

# The Debian mirror this machine's apt uses (deb822 or one-line sources).
debian_mirror() {
    local uri
    uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    [ -n "$uri" ] || uri=$(awk '/^deb / && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
    [ -n "$uri" ] || die "cannot find a Debian mirror in /etc/apt (sources.list or sources.list.d/*.sources)"
    echo "$uri"
}

host_arch() { dpkg --print-architecture; }

# Makes arm64 binaries runnable on an amd64 host (qemu-user through binfmt_misc).
ensure_emulation() {
    local arch=$1
    [ "$arch" = "$(host_arch)" ] && return 0
    [ "$arch" = arm64 ] || die "cannot run $arch binaries on $(host_arch)"
    [ -e /usr/bin/qemu-aarch64-static ] || die "qemu-aarch64-static not installed: apt-get install qemu-user-static binfmt-support"
    if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || die "cannot mount binfmt_misc (needed to run arm64 binaries)"
    fi
    if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
        need update-binfmts binfmt-support
        update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
        [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || die "binfmt_misc has no qemu-aarch64 entry (update-binfmts --enable qemu-aarch64)"
    fi
}

# Mounts made by with_chroot_mounts, unmounted by cleanup_mounts (innermost first).
MOUNTS=()
cleanup_mounts() {
    local i
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[$i]}" 2>/dev/null || true; done
    MOUNTS=()
}
# bind_mount SOURCE TARGET [ro]
bind_mount() {
    mkdir -p "$2"
    mountpoint -q "$2" && return 0
    mount --bind "$1" "$2"
    MOUNTS+=("$2")
    if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$2"; fi
}
# chroot_mounts DIR: /proc, /dev (bind) and resolv.conf for apt and swift.
chroot_mounts() {
    local root=$1
    if ! mountpoint -q "$root/proc"; then mount -t proc proc "$root/proc"; MOUNTS+=("$root/proc"); fi
    bind_mount /dev "$root/dev"
    if ! mountpoint -q "$root/dev/pts"; then mount -t devpts devpts "$root/dev/pts" -o newinstance,ptmxmode=0666 2>/dev/null && MOUNTS+=("$root/dev/pts") || true; fi
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

# ensure_chroot DIR SUITE ARCH [PACKAGE...]: a minbase chroot, bootstrapped
# once, with the packages installed once (a stamp file names them).
ensure_chroot() {
    local root=$1 suite=$2 arch=$3
    shift 3
    ensure_emulation "$arch"
    if [ ! -x "$root/usr/bin/apt-get" ]; then
        rm -rf "$root"
        mkdir -p "$(dirname "$root")"
        local base=$CACHE/chroot-$suite-$arch
        if [ "$root" != "$base" ] && [ -x "$base/usr/bin/apt-get" ]; then
            note "copying the clean $suite $arch chroot to $root"
            cp -a "$base" "$root"
        else
            need debootstrap debootstrap
            note "bootstrapping $suite $arch into $root (once; a few minutes)"
            debootstrap --arch="$arch" --variant=minbase "$suite" "$root" "$(debian_mirror)" >/dev/null \
                || die "debootstrap of $suite $arch failed (see $root/debootstrap/debootstrap.log)"
        fi
        # Package lists, so that `apt-get install ./x.deb` in a copy works offline from them.
        chroot_mounts "$root"
        chroot "$root" apt-get update -qq || die "apt-get update failed in $root"
    fi
    [ $# -gt 0 ] || return 0
    # Only what is missing is installed, so runs from checkouts that need
    # different packages share the chroot without undoing each other.
    local missing
    missing=$(chroot "$root" dpkg-query -W -f='${Status} ${Package}\n' "$@" 2>&1 | grep -v '^install ok installed ' || true)
    if [ -n "$missing" ]; then
        note "installing into $root: $*"
        chroot_mounts "$root"
        chroot "$root" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
            || die "apt-get install $* failed in $root"
    fi
}

# overlay_chroot BASE WORKDIR: a throwaway writable copy of BASE at
# WORKDIR/root (overlayfs; the base is not changed). Call it directly, not
# in $(...), so that cleanup_mounts knows the mount.
overlay_chroot() {
    local base=$1 work=$2
    mkdir -p "$work/upper" "$work/work" "$work/root"
    mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/work" "$work/root" \
        || die "cannot mount an overlay of $base"
    MOUNTS+=("$work/root")
}

# The package's version: Version.swift's, plus +git<commits>.<hash> when HEAD
# is not exactly a v<version> tag (so every commit's package upgrades the last).
package_version() {
    local base count hash
    base=$(sed -n 's/^let gatewayVersion = "\(.*\)"/\1/p' "$REPO/Sources/cast-gateway/Version.swift")
    [ -n "$base" ] || die "no gatewayVersion in Sources/cast-gateway/Version.swift"
    if git -C "$REPO" describe --exact-match --tags "v$base" >/dev/null 2>&1 || ! git -C "$REPO" rev-parse HEAD >/dev/null 2>&1; then
        echo "$base"
        return
    fi
    count=$(git -C "$REPO" rev-list --count HEAD)
    hash=$(git -C "$REPO" rev-parse --short=7 HEAD)
    echo "$base+git$count.$hash"
}

# ensure_sysroot_arm64 SUITE: trixie arm64 headers, libraries and Swift's
# static stdlib unpacked into $CACHE/sysroot-SUITE-arm64 (cross-compiling).
SYSROOT_PACKAGES="swiftlang libc6-dev libstdc++-14-dev libgcc-14-dev linux-libc-dev libssl-dev libcec-dev libp8-platform-dev libudev-dev libavahi-client-dev libgpiod-dev libmosquitto-dev libmicrohttpd-dev libcurl4-openssl-dev"
ensure_sysroot_arm64() {
    local suite=$1 sysroot apt_dir deb key
    # One sysroot per package list: checkouts that need different libraries
    # do not rebuild each other's.
    key=$(printf '%s' "$SYSROOT_PACKAGES" | sha256sum | cut -c1-8)
    sysroot=$CACHE/sysroot-$suite-arm64-$key
    apt_dir=$CACHE/apt-$suite-arm64-$key
    if [ "$(cat "$sysroot/.packages" 2>/dev/null)" = "$SYSROOT_PACKAGES" ]; then echo "$sysroot"; return; fi
    need apt-get apt
    note "building the $suite arm64 sysroot in $sysroot (once; ~450 MB download)"
    mkdir -p "$apt_dir"/{lists/partial,archives/partial,preferences.d}
    : > "$apt_dir/status"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(debian_mirror) $suite main" > "$apt_dir/sources.list"
    cat > "$apt_dir/apt.conf" <<APT
APT::Architecture "arm64";
APT::Architectures { "arm64"; };
APT::Install-Recommends "false";
Dir::State::Lists "$apt_dir/lists";
Dir::State::status "$apt_dir/status";
Dir::Cache "$apt_dir";
Dir::Cache::archives "$apt_dir/archives";
Dir::Etc::SourceList "$apt_dir/sources.list";
Dir::Etc::SourceParts "-";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "$apt_dir/preferences.d";
APT
    # shellcheck disable=SC2086
    {
        APT_CONFIG=$apt_dir/apt.conf apt-get update -qq
        APT_CONFIG=$apt_dir/apt.conf apt-get install -y -qq --download-only $SYSROOT_PACKAGES >/dev/null
    } || die "cannot download the arm64 sysroot packages from $(debian_mirror)"
    rm -rf "$sysroot"
    mkdir -p "$sysroot"
    for deb in "$apt_dir"/archives/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
    # Merged /usr: libc.so's linker script names /lib/..., some packages ship /lib.
    local dir
    for dir in lib bin sbin; do
        if [ -d "$sysroot/$dir" ] && [ ! -L "$sysroot/$dir" ]; then
            mkdir -p "$sysroot/usr/$dir"
            cp -a "$sysroot/$dir/." "$sysroot/usr/$dir/"
            rm -rf "${sysroot:?}/$dir"
        fi
        ln -sfn "usr/$dir" "$sysroot/$dir"
    done
    [ -e "$sysroot/usr/lib/swift_static" ] || ln -s ../libexec/swift/lib/swift_static "$sysroot/usr/lib/swift_static"
    [ -e "$sysroot/usr/lib/swift" ] || ln -s ../libexec/swift/lib/swift "$sysroot/usr/lib/swift"
    # Only headers and libraries are needed: drop the arm64 toolchain itself.
    rm -rf "$sysroot/usr/libexec/swift/bin" "$sysroot/usr/libexec/swift/lib/lldb" "$sysroot/usr/libexec/swift/lib/sourcekitd.framework" \
        "$sysroot/usr/share/doc" "$sysroot/usr/share/man"
    [ -d "$sysroot/usr/lib/swift_static/linux" ] || die "the arm64 sysroot has no Swift static stdlib (usr/libexec/swift/lib/swift_static/linux)"
    echo "$SYSROOT_PACKAGES" > "$sysroot/.packages"
    echo "$sysroot"
}

# profile_get PROFILE SECTION KEY: the first value of KEY in a board
# profile's SECTION (boards/*.conf; comments after a value dropped).
profile_get() {
    awk -v section="[$2]" -v key="$3" '
        /^[[:space:]]*\[/ { current = $0; gsub(/[[:space:]]/, "", current); next }
        current == section && $0 ~ "^[[:space:]]*" key "[[:space:]]*=" {
            sub(/^[^=]*=[[:space:]]*/, ""); sub(/[[:space:]]+#.*$/, ""); print; exit
        }' "$1"
}

# uboot_script OUT BOOTARGS PROFILE: deploy/uboot/boot.cmd for the board of
# PROFILE (boards/NAME.conf: its uboot-addresses become the script's setenv
# lines, its uboot-env whether the script keeps the A/B variables in
# uboot.env itself), as the boot.scr U-Boot runs (mkimage from u-boot-tools).
uboot_script() {
    local out=$1 bootargs=$2 profile=$3 addresses="" pair env text
    need mkimage u-boot-tools
    for pair in $(profile_get "$profile" board uboot-addresses); do addresses+="setenv ${pair%%=*} ${pair#*=}"$'\n'; done
    [ -n "$addresses" ] || die "$profile: no [board] uboot-addresses (boards/README.md)"
    env=$(profile_get "$profile" board uboot-env)
    case $env in
        fat) env=no ;;
        script) env=yes ;;
        *) die "$profile: [board] uboot-env must be fat or script, not '$env' (boards/README.md)" ;;
    esac
    # Without its comments: they name the placeholders too, and a filled-in
    # one would span lines that are no comment.
    text=$(grep -v '^[[:space:]]*#' "$DEPLOY_DIR/uboot/boot.cmd")
    text=${text//@BOOTARGS@/"$bootargs"}
    text=${text//@LOAD_ADDRESSES@/"${addresses%$'\n'}"}
    text=${text//@ENV_FILE@/"$env"}
    printf '%s\n' "$text" > "$out.cmd"
    mkimage -A arm64 -O linux -T script -C none -n "cast-gateway A/B boot" -d "$out.cmd" "$out" > /dev/null \
        || die "mkimage could not make $out from $out.cmd"
    rm -f "$out.cmd"
}

# ensure_boot_tools: sets BOOT_TOOLS to a trixie amd64 chroot holding
# qemu-system-aarch64 and u-boot-qemu (cached; copied from the clean trixie
# chroot when there is one), and BOOT_TOOLS_RPI to the directory in it (a
# path inside the chroot) with the Pi's U-Boot (u-boot-rpi's rpi_arm64) and
# the Pi 3 B device tree from Debian's arm64 kernel, unpacked from their
# arm64 packages. The U-Boot tests run these, not the host's: bookworm's
# qemu (7.2.9) breaks the flash writes U-Boot saves its environment with
# (qemu issue 2343: "Flash buffer write timeout"), and trixie's U-Boot
# 2025.01 is the release the board OS ships.
ensure_boot_tools() {
    BOOT_TOOLS=$CACHE/boot-tools-trixie-amd64
    BOOT_TOOLS_RPI=/opt/rpi-arm64
    ensure_chroot "$BOOT_TOOLS" trixie amd64 qemu-system-arm u-boot-qemu libubootenv-tool
    [ -f "$BOOT_TOOLS$BOOT_TOOLS_RPI/.complete" ] && return 0
    note "unpacking the Pi's U-Boot and device tree into $BOOT_TOOLS$BOOT_TOOLS_RPI (once)"
    chroot_mounts "$BOOT_TOOLS"
    # shellcheck disable=SC2016 # expanded in the chroot
    chroot "$BOOT_TOOLS" sh -euc '
        dir=$1
        dpkg --add-architecture arm64
        apt-get update -qq
        kernel=$(apt-cache depends linux-image-arm64:arm64 | sed -n "s/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p" | head -1)
        [ -n "$kernel" ] || { echo "no kernel package behind linux-image-arm64" >&2; exit 1; }
        rm -rf "$dir" /tmp/rpi-debs
        mkdir -p "$dir" /tmp/rpi-debs/x
        chown _apt /tmp/rpi-debs   # apt downloads as _apt
        cd /tmp/rpi-debs
        apt-get download -qq u-boot-rpi:arm64 "$kernel:arm64"
        for deb in ./*.deb; do dpkg-deb -x "$deb" x; done
        cp x/usr/lib/u-boot/rpi_arm64/u-boot.bin "$dir/"
        cp x/usr/lib/linux-image-*/broadcom/bcm2837-rpi-3-b.dtb "$dir/"
        rm -rf /tmp/rpi-debs
        touch "$dir/.complete"' sh "$BOOT_TOOLS_RPI" || die "cannot unpack u-boot-rpi and the arm64 kernel's device trees in $BOOT_TOOLS"
}

# The image's partition table (deploy/image). A/B images: 1 boot (FAT),
# 2 root slot A, 3 root slot B (as big as A, empty until the first update),
# 4 data (grown by the first boot to fill the card). The disk id is the same
# on every image: RAUC's system.conf names the slots by PARTUUID
# (<disk id>-02/-03), and a bundle's root, built by another run, carries its
# own system.conf.
IMAGE_DISK_ID=0x0ca57ca5
IMAGE_FAT_MIB=256
IMAGE_DATA_LABEL=CGDATA
# pack_image OUTPUT FAT_DIR ROOT_DIR ROOT_MIB [DATA_DIR DATA_MIB]: writes the
# image file OUTPUT from directories, without loop devices (mtools and
# mkfs.ext4 -d): FAT_DIR as the FAT32 boot partition RASPIFIRM, ROOT_DIR as an
# ext4 RASPIROOT of ROOT_MIB (both sizes rounded up to 4 MiB). With DATA_DIR the A/B layout (above), else boot
# and one root. Partitions start on 4 MiB boundaries (SD erase blocks); MBR,
# which the Pi's firmware needs. Unwritten space (slot B) stays sparse.
pack_image() {
    local output=$1 fat_dir=$2 root_dir=$3 root_mib=$4 data_dir=${5:-} data_mib=${6:-0} parts total
    # Whole 4 MiB steps, so that every partition after a slot starts on one.
    root_mib=$(( (root_mib + 3) / 4 * 4 ))
    data_mib=$(( (data_mib + 3) / 4 * 4 ))
    parts=$(mktemp -d "${TMPDIR:-/tmp}/cast-gateway-pack-XXXXXX")
    rm -f "$parts/fat.img"
    mkfs.vfat -F 32 -n RASPIFIRM -C "$parts/fat.img" $((IMAGE_FAT_MIB * 1024)) > /dev/null \
        || { rm -rf "$parts"; die "mkfs.vfat of the boot partition failed"; }
    if [ -n "$(ls -A "$fat_dir")" ]; then
        (cd "$fat_dir" && mcopy -s -p -m -i "$parts/fat.img" ./* ::/) \
            || { rm -rf "$parts"; die "mcopy could not fill the boot partition (more than $IMAGE_FAT_MIB MiB in $fat_dir?)"; }
    fi
    truncate -s "${root_mib}M" "$parts/root.img"
    mkfs.ext4 -q -L RASPIROOT -d "$root_dir" "$parts/root.img" \
        || { rm -rf "$parts"; die "mkfs.ext4 -d of the root file system failed ($root_mib MiB for $root_dir)"; }
    rm -f "$output"
    local a=$((4 + IMAGE_FAT_MIB))
    if [ -n "$data_dir" ]; then
        truncate -s "${data_mib}M" "$parts/data.img"
        mkfs.ext4 -q -L "$IMAGE_DATA_LABEL" -d "$data_dir" "$parts/data.img" \
            || { rm -rf "$parts"; die "mkfs.ext4 -d of the data partition failed ($data_mib MiB for $data_dir)"; }
        total=$((a + 2 * root_mib + data_mib))
        truncate -s "${total}M" "$output"
        sfdisk -q "$output" <<PARTITIONS || { rm -rf "$parts"; die "sfdisk could not partition $output"; }
label: dos
label-id: $IMAGE_DISK_ID
start=4MiB, size=${IMAGE_FAT_MIB}MiB, type=c, bootable
start=${a}MiB, size=${root_mib}MiB, type=83
start=$((a + root_mib))MiB, size=${root_mib}MiB, type=83
start=$((a + 2 * root_mib))MiB, size=${data_mib}MiB, type=83
PARTITIONS
        dd if="$parts/data.img" of="$output" bs=1M seek=$((a + 2 * root_mib)) conv=notrunc,sparse status=none
    else
        total=$((a + root_mib))
        truncate -s "${total}M" "$output"
        sfdisk -q "$output" <<PARTITIONS || { rm -rf "$parts"; die "sfdisk could not partition $output"; }
label: dos
start=4MiB, size=${IMAGE_FAT_MIB}MiB, type=c, bootable
start=${a}MiB, size=${root_mib}MiB, type=83
PARTITIONS
    fi
    dd if="$parts/fat.img" of="$output" bs=1M seek=4 conv=notrunc,sparse status=none
    dd if="$parts/root.img" of="$output" bs=1M seek="$a" conv=notrunc,sparse status=none
    rm -rf "$parts"
}

# image_web_section: the image's [web] section (deploy/image appends it to
# the default cast-gateway.conf): the page is on once the password file
# exists, which firstboot.conf's web-password makes on the first boot (on
# the data partition on A/B images); without it there is no web interface.
IMAGE_WEB_PASSWORD_FILE=/var/lib/cast-gateway/web-password
image_web_section() {
    cat <<WEB

# The web interface (README, "Web interface"): on when the password file
# exists. firstboot.conf's web-password makes it on the first boot; or, on
# the box: cast-gateway web-password $IMAGE_WEB_PASSWORD_FILE
# (then chown cast-gateway $IMAGE_WEB_PASSWORD_FILE; systemctl restart cast-gateway).
[web]
listen = 0.0.0.0:8080
password-file = $IMAGE_WEB_PASSWORD_FILE
WEB
}
