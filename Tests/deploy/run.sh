#!/usr/bin/env bash
# Tests the deployment side: the service's security score, shellcheck over
# every script, the Debian packages (built by deploy/package, checked by
# lintian, installed with apt-get in throwaway copies of clean chroots; arm64
# under qemu-user), deploy/flash on files and loop devices, and the image's
# A/B partition layout (deploy/lib.sh pack_image, on files).
#
#   Tests/deploy/run.sh [--targets "trixie:amd64 trixie:arm64 bookworm:amd64"] [--skip-build]
#
# Each installed package must: create its user and groups, own its config
# (mode 600), run `cast-gateway --version`, cast to a cast-receiver-sim built
# for the same target and running in the chroot, accept every board profile
# with check-config, keep an edited config over an upgrade, and leave no
# state or user behind on purge. Also: signed update bundles built and
# installed by RAUC on loop devices (Tests/deploy/bundle.sh, with the
# fleet's install-request fetching them over HTTP on loopback), deploy/install
# --bundle against a fake box (install-bundle.sh), the factory reset on
# directories (factory-reset.sh), the first boot with Raspberry Pi Imager's
# files in a chroot (firstboot.sh), Imager's repository file (os-list.sh),
# and the A/B
# boot script in trixie's U-Boot under qemu (Tests/deploy/uboot-slots.sh).
# The last line is `deploy: N passed, M failed`.
# Needs root; deploy/install-build-deps.sh installs the rest. Caches in
# /var/cache/cast-gateway (first run ~15 min, then ~5 min).
set -euo pipefail
# shellcheck disable=SC2034 # PROG is used by deploy/lib.sh
PROG=deploy
# shellcheck source=deploy/lib.sh
source "$(dirname "$0")/../../deploy/lib.sh"
TARGETS=${DEPLOY_TARGETS:-"trixie:amd64 trixie:arm64 bookworm:amd64"}
SKIP_BUILD=0
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        --targets) TARGETS=${2:?--targets needs a list}; shift 2 ;;
        --skip-build) SKIP_BUILD=1; shift ;;
        *) echo "deploy: unknown argument '$1' (try --help)" >&2; exit 64 ;;
    esac
done
need_root
WORK=$(mktemp -d /tmp/cast-gateway-deploy-test-XXXXXX)
SIM_PIDS=()
finish() {
    local pid
    for pid in "${SIM_PIDS[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
    cleanup_mounts
    rm -rf "$WORK"
}
trap finish EXIT
# shellcheck source=Tests/deploy/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh"
# check NAME COMMAND...: one counted check; output shown only on failure.
check() {
    local name=$1 log
    shift
    log=$WORK/check.log
    if "$@" > "$log" 2>&1; then ok "$name"; else tail -30 "$log" >&2; bad "$name"; fi
}

# --- the unit's security score and shellcheck ------------------------------
check "systemd-analyze security of deploy/cast-gateway.service <= 2.0" bash "$REPO/Tests/deploy/security.sh"
check "shellcheck over deploy/ boards/ udev/ Tests/ .ci/" bash "$REPO/Tests/deploy/shellcheck.sh"
check "board profiles follow the schema" bash "$REPO/Tests/deploy/boards.sh"

# --- deploy/flash on files and loop devices ---------------------------------
check "deploy/flash on files and loop devices" bash "$REPO/Tests/deploy/flash.sh"
# The A/B partition layout deploy/image packs (files only, seconds).
check "the image's partition layout (Tests/deploy/image-layout.sh)" bash "$REPO/Tests/deploy/image-layout.sh"
# Raspberry Pi Imager's repository file (deploy/os-list) on stand-in images.
check "deploy/os-list: Imager's os_list with the images' sizes and checksums (Tests/deploy/os-list.sh)" bash "$REPO/Tests/deploy/os-list.sh"

# --- update bundles: deploy/bundle and RAUC on loop devices -------------------
check "deploy/bundle, RAUC and install-request on loop devices (Tests/deploy/bundle.sh)" bash "$REPO/Tests/deploy/bundle.sh"
check "deploy/install --bundle: arguments, dry run, a fake box (Tests/deploy/install-bundle.sh)" bash "$REPO/Tests/deploy/install-bundle.sh"
check "the image's factory reset on directories (Tests/deploy/factory-reset.sh)" bash "$REPO/Tests/deploy/factory-reset.sh"
check "the image's first boot with Raspberry Pi Imager's files and firstboot.conf's web-password, in a chroot (Tests/deploy/firstboot.sh)" \
    bash "$REPO/Tests/deploy/firstboot.sh"

# --- packages -----------------------------------------------------------------
# in_chroot ROOT COMMAND...: runs a command in the chroot.
in_chroot() { local root=$1; shift; chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }

# install_test SUITE ARCH DEB SIMULATOR
install_test() {
    local suite=$1 arch=$2 deb=$3 sim=$4 base root work version port profile
    base=$CACHE/chroot-$suite-$arch
    ensure_chroot "$base" "$suite" "$arch"
    if ! ls "$base"/var/lib/apt/lists/*_Packages >/dev/null 2>&1; then
        chroot_mounts "$base"
        chroot "$base" apt-get update -qq
    fi
    work=$WORK/$suite-$arch
    mkdir -p "$work"
    overlay_chroot "$base" "$work"
    root=$work/root
    chroot_mounts "$root"
    cp "$deb" "$root/tmp/cast-gateway.deb"
    cp "$sim" "$root/tmp/cast-receiver-sim"
    local t="$suite $arch"

    check "$t: apt-get install ./cast-gateway.deb in a clean chroot" \
        in_chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/cast-gateway.deb
    version=$(dpkg-deb -f "$deb" Version)
    check "$t: cast-gateway --version runs" sh -c "chroot '$root' /usr/bin/cast-gateway --version | tee /dev/stderr | grep -q ."
    check "$t: system user and device groups exist" \
        in_chroot "$root" sh -c 'getent passwd cast-gateway && for g in video input dialout gpio cast-gateway; do getent group $g || exit 1; done'
    check "$t: config is a 600 conffile owned by the service user" \
        sh -c "[ \"\$(chroot '$root' stat -c '%U:%G %a' /etc/cast-gateway/gateway.conf)\" = 'cast-gateway:cast-gateway 600' ]"
    check "$t: the service user can read the config (check-config)" \
        in_chroot "$root" setpriv --reuid=cast-gateway --regid=cast-gateway --init-groups cast-gateway check-config /etc/cast-gateway/gateway.conf
    check "$t: unit, udev rules and board profiles installed" \
        in_chroot "$root" sh -c 'ls /lib/systemd/system/cast-gateway.service /lib/udev/rules.d/60-cast-gateway.rules /usr/share/cast-gateway/boards/rpi4.conf'

    # Every board profile's config sections are valid config (the [board]
    # section too, when this build knows it: `cast-gateway boards`).
    local boards_known=0
    in_chroot "$root" cast-gateway boards > "$work/boards.txt" 2>&1 && boards_known=1
    for profile in "$REPO"/boards/*.conf; do
        name=$(basename "$profile" .conf)
        { printf '[device]\nhost = 127.0.0.1\n'; awk '/^\[/ {skip = ($0 == "[board]")} !skip' "$profile"; } > "$root/tmp/profile-$name.conf"
        check "$t: board profile $name passes check-config" in_chroot "$root" cast-gateway check-config "/tmp/profile-$name.conf"
        if [ "$boards_known" = 1 ]; then
            printf '[device]\nhost = 127.0.0.1\n[board]\nname = %s\n' "$name" > "$root/tmp/board-$name.conf"
            check "$t: [board] name = $name passes check-config" in_chroot "$root" cast-gateway check-config "/tmp/board-$name.conf"
            check "$t: cast-gateway boards lists $name" grep -qw "$name" "$work/boards.txt"
        fi
    done
    [ "$boards_known" = 1 ] || echo "  (this build has no 'cast-gateway boards': [board] sections not checked)"

    # cast against a simulator for the same target, inside the chroot (with
    # the libraries it needs beyond the package's: deploy/package lists them).
    if [ -s "$sim.depends" ]; then
        # shellcheck disable=SC2046  # one word per package
        in_chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            $(cat "$sim.depends") > "$work/sim-deps.log" 2>&1 || { tail -5 "$work/sim-deps.log" >&2; bad "$t: installing the simulator's libraries"; }
    fi
    # chroot execs the simulator, so $! is its pid (through qemu-user for arm64).
    : > "$work/sim.out"
    chroot "$root" /tmp/cast-receiver-sim --port 0 --log /tmp/sim.jsonl > "$work/sim.out" 2> "$work/sim.err" &
    SIM_PIDS+=($!)
    port=""
    for _ in $(seq 1 300); do
        port=$(awk '/^listening/ {print $3; exit}' "$work/sim.out" 2>/dev/null || true)
        [ -n "$port" ] && break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        cat "$work/sim.err" >&2
        bad "$t: cast-receiver-sim did not start"
    else
        check "$t: cast URL --device 127.0.0.1:$port reaches the simulator" \
            sh -c "chroot '$root' /usr/bin/cast-gateway cast http://media.test/deploy.mp4 --title Deploy --device 127.0.0.1:$port \
                && grep -q '\"LOAD' '$root/tmp/sim.jsonl'"
    fi
    kill "${SIM_PIDS[-1]}" 2>/dev/null || true
    wait "${SIM_PIDS[-1]}" 2>/dev/null || true

    # Upgrade: the administrator's edit survives, the owner is kept.
    echo "# edited by the administrator" >> "$root/etc/cast-gateway/gateway.conf"
    dpkg-deb -R "$deb" "$work/repack"
    sed -i "s/^Version: .*/Version: $version+upgrade1/" "$work/repack/DEBIAN/control"
    dpkg-deb --root-owner-group -b "$work/repack" "$root/tmp/cast-gateway-upgrade.deb" >/dev/null
    check "$t: upgrade with apt-get install ./…deb" \
        in_chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -o Dpkg::Options::=--force-confdef \
        -o Dpkg::Options::=--force-confold /tmp/cast-gateway-upgrade.deb
    check "$t: upgrade keeps the edited config and its owner" sh -c \
        "grep -q 'edited by the administrator' '$root/etc/cast-gateway/gateway.conf' && [ \"\$(chroot '$root' stat -c '%U %a' /etc/cast-gateway/gateway.conf)\" = 'cast-gateway 600' ] \
         && [ \"\$(chroot '$root' dpkg-query -W -f='\${Version}' cast-gateway)\" = '$version+upgrade1' ]"

    # Purge: state, config and user are gone.
    mkdir -p "$root/var/lib/cast-gateway" && echo state > "$root/var/lib/cast-gateway/state"
    check "$t: apt-get purge" in_chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get purge -y cast-gateway
    check "$t: purge removes state, config and the user" sh -c \
        "[ ! -e '$root/var/lib/cast-gateway' ] && [ ! -e '$root/etc/cast-gateway' ] && ! chroot '$root' getent passwd cast-gateway"
}

for target in $TARGETS; do
    suite=${target%:*} arch=${target#*:}
    deb=$(ls -t "$REPO"/dist/cast-gateway_*_"${suite}_${arch}".deb 2>/dev/null | head -1 || true)
    if [ "$SKIP_BUILD" = 0 ] || [ -z "$deb" ]; then
        echo "deploy: deploy/package --arch $arch --suite $suite --simulator"
        start=$(date +%s)
        if deb=$(bash "$REPO/deploy/package" --arch "$arch" --suite "$suite" --simulator 2> "$WORK/package.log" | tail -1); then
            ok "$target: deploy/package ($(( $(date +%s) - start )) s)"
        else
            tail -30 "$WORK/package.log" >&2
            bad "$target: deploy/package"
            continue
        fi
    fi
    [[ $deb == *"_${suite}_${arch}.deb" ]] || { bad "$target: the package is named $deb"; continue; }
    if [ "$suite" = trixie ] && [ -s "$WORK/package.log" ]; then
        # This build is the project's oldest-toolchain check: Debian's own
        # Swift 6.0.3 against trixie's libcec 7, libgpiod 2 and OpenSSL 3.5.
        check "$target: built with Debian trixie's Swift 6.0.3" grep -q "with Swift version 6\.0\.3" "$WORK/package.log"
    fi
    check "$target: lintian reports no errors" lintian --fail-on error "$deb"
    sim=$(dirname "$deb")/cast-receiver-sim_${suite}_${arch}
    [ -x "$sim" ] || { bad "$target: no $sim (deploy/package --simulator)"; continue; }
    start=$(date +%s)
    install_test "$suite" "$arch" "$deb" "$sim"
    echo "deploy: $target install tests took $(( $(date +%s) - start )) s"
done

# --- the A/B boot script in Debian's U-Boot --------------------------------
# After the packages: its tools' chroot starts as a copy of the clean trixie one.
check "the A/B boot script in trixie's U-Boot under qemu (Tests/deploy/uboot-slots.sh)" \
    bash "$REPO/Tests/deploy/uboot-slots.sh"

echo "deploy: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
