#!/usr/bin/env bash
# Builds every libFuzzer target in Fuzz/Targets/ (AddressSanitizer + libFuzzer)
# and runs each for a bounded time. Exits non-zero on any crash, sanitizer
# report (memory error, leak), timeout or violated property; the inputs that
# caused them are kept in build/fuzz/artifacts/<target>/.
#
#   Fuzz/run.sh [--build-only] [--target NAME]... [SECONDS_PER_TARGET]
#
# SECONDS_PER_TARGET defaults to 20. See Fuzz/README.md.
set -euo pipefail

usage() {
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    cat <<'EOF'

Options:
  --build-only     build the targets, do not run them
  --target NAME    run only NAME (repeatable); names are the files in Fuzz/Targets/
  -h, --help       this text

Environment:
  CAST_FUZZ_PROPERTIES=off   report only crashes and sanitizer findings, not
                             violated properties (see Fuzz/README.md)
  FUZZ_CONFIGURATION=debug   build the modules unoptimised (default: release)
EOF
}

SECONDS_PER_TARGET=20
BUILD_ONLY=0
SELECTED=()
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --build-only) BUILD_ONLY=1 ;;
        --target) [ $# -ge 2 ] || { echo "fuzz: --target needs a name" >&2; exit 64; }; SELECTED+=("$2"); shift ;;
        --target=*) SELECTED+=("${1#--target=}") ;;
        ''|*[!0-9]*) echo "fuzz: unknown argument '$1' (try --help)" >&2; exit 64 ;;
        *) SECONDS_PER_TARGET=$1 ;;
    esac
    shift
done

REPO=$(cd "$(dirname "$0")/.." && pwd)
FUZZ=$REPO/Fuzz
# shellcheck source=Support/report-finding.sh
. "$FUZZ/Support/report-finding.sh"
# shellcheck source=Support/limits.sh
. "$FUZZ/Support/limits.sh"
OUT=$REPO/build/fuzz
SCRATCH=$REPO/build/fuzz-spm
# The modules the targets import, instrumented for coverage and ASan. They are
# built by SwiftPM from Package.swift (so sibling imports and the C shim just
# work) into their own scratch path; the fuzz entry files are linked against
# their object files. TestSupport brings GatewayCore's dependencies and the
# in-memory byte stream and manual clock.
MODULES=(JSON CastProtocol SystemSupport Configuration ServiceLifecycle GatewayModel Commands CastClient GatewayCore Interpreter StatusOutput TestSupport RemoteInput Discovery Fleet MediaServer Kiosk Daemon)
# release runs the async whole path about twice as fast; debug builds quicker.
CONFIGURATION=${FUZZ_CONFIGURATION:-release}
case "$CONFIGURATION" in
    release) OPTIMIZE=-O ;;
    debug) OPTIMIZE=-Onone ;;
    *) echo "fuzz: FUZZ_CONFIGURATION must be release or debug" >&2; exit 64 ;;
esac
SPM=(swift build --package-path "$REPO" --scratch-path "$SCRATCH" -c "$CONFIGURATION" --sanitize fuzzer --sanitize address)

ALL_TARGETS=()
for file in "$FUZZ"/Targets/*.swift; do ALL_TARGETS+=("$(basename "$file" .swift)"); done
if [ ${#SELECTED[@]} -eq 0 ]; then SELECTED=("${ALL_TARGETS[@]}"); fi
for name in "${SELECTED[@]}"; do
    [ -f "$FUZZ/Targets/$name.swift" ] || { echo "fuzz: no target '$name' (have: ${ALL_TARGETS[*]})" >&2; exit 64; }
done

started=$(date +%s)
echo "fuzz: building modules (${MODULES[*]}, $CONFIGURATION) into ${SCRATCH#"$REPO"/}"
mkdir -p "$OUT/logs"
# CLibraryLoader by name: only C shims use it, and SwiftPM compiles a C
# target's object for a --target build only when a Swift module imports it.
for module in TestSupport GatewayCore StatusOutput Daemon CLibraryLoader; do
    if ! "${SPM[@]}" --target "$module" >"$OUT/logs/build-$module.log" 2>&1; then
        grep -v "Cannot export local symbol" "$OUT/logs/build-$module.log" | tail -n 40 >&2
        echo "fuzz: building $module failed" >&2
        exit 1
    fi
done
BIN=$("${SPM[@]}" --show-bin-path)
# Every module built here is a dependency of the targets above (the scratch
# path is this script's own), so all their objects are linked: a new module
# behind the daemon needs no change here.
OBJECTS=()
for directory in "$BIN"/*.build; do
    objects=("$directory"/*.o)
    [ -e "${objects[0]}" ] && OBJECTS+=("${objects[@]}")
done
MODULE_MAPS=()
for map in "$REPO"/Sources/C*/module.modulemap; do MODULE_MAPS+=(-Xcc "-fmodule-map-file=$map"); done
# The C targets' module maps, which SwiftPM generates (every C target's).
for map in "$BIN"/C*.build/module.modulemap; do MODULE_MAPS+=(-Xcc "-fmodule-map-file=$map"); done
# Their public headers include each other's (the shims include LibraryLoader.h).
for include in "$REPO"/Sources/C*/include; do MODULE_MAPS+=(-Xcc "-I$include"); done

# StatusOutput's LED lines call CGPIODShim (libgpiod), TLS calls OpenSSL. The
# optional libraries (libcec, libmicrohttpd, libmosquitto, avahi-client) are
# dlopen'ed by CLibraryLoader when their part runs, so nothing links them.
read -r -a C_LIBRARIES <<<"$(pkg-config --libs libgpiod openssl)"
OUT_BIN=$OUT/bin/$CONFIGURATION
mkdir -p "$OUT_BIN"
for name in "${SELECTED[@]}"; do
    binary=$OUT_BIN/fuzz-$name
    # Relink only when the entry file, the support files or a module changed.
    if [ -x "$binary" ] && [ -z "$(find "$FUZZ/Targets/$name.swift" "$FUZZ"/Support "${OBJECTS[@]}" -newer "$binary" -print -quit)" ]; then
        continue
    fi
    echo "fuzz: linking fuzz-$name"
    # gold warns once per ASan helper symbol ("Cannot export local symbol"); harmless.
    swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 "$OPTIMIZE" -g -module-name "FuzzTarget" \
        -I "$BIN/Modules" "${MODULE_MAPS[@]}" \
        "$FUZZ"/Support/*.swift "$FUZZ/Targets/$name.swift" "${OBJECTS[@]}" \
        "${C_LIBRARIES[@]}" -o "$binary" \
        2> >(grep -v "Cannot export local symbol" >&2)
done
echo "fuzz: built in $(( $(date +%s) - started )) s"
[ "$BUILD_ONLY" -eq 1 ] && exit 0

# The Swift runtime backtracer hangs next to ASan on a crash; libFuzzer prints the stack.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
cd "$REPO"  # target options name files relative to the repository
failed=()
for name in "${SELECTED[@]}"; do
    seeds=$FUZZ/corpus/$name
    corpus=$OUT/corpus/$name      # new inputs found by runs; the seeds stay untouched
    artifacts=$OUT/artifacts/$name
    log=$OUT/logs/$name.log
    mkdir -p "$seeds" "$corpus" "$artifacts" "$OUT/logs"
    # Per-target libFuzzer flags, from a `// fuzz-options:` line in the target file.
    read -r -a options <<<"$(sed -n 's|^// fuzz-options: *||p' "$FUZZ/Targets/$name.swift" | head -n 1)"
    echo "fuzz: $name for $SECONDS_PER_TARGET s ($(find "$seeds" -type f | wc -l) seeds)"
    status=0
    # A target that turns off per-input leak checks (-detect_leaks=0) also skips
    # LeakSanitizer's check at exit, which would count tasks still winding down.
    leaks=1
    case " ${options[*]:-} " in *" -detect_leaks=0 "*) leaks=0 ;; esac
    asan=${ASAN_OPTIONS:-detect_leaks=$leaks}
    ASAN_OPTIONS=$asan "$OUT_BIN/fuzz-$name" -max_total_time="$SECONDS_PER_TARGET" -timeout="$UNIT_TIMEOUT" -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 ${options[@]+"${options[@]}"} \
        "$corpus" "$seeds" >"$log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        failed+=("$name")
        echo "fuzz: $name FAILED (exit $status); log: ${log#"$REPO"/}"
        grep -E 'property violated|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|Fatal error|Test unit written' "$log" \
            | cut -c1-400 | head -n 6 | sed 's/^/    /'
        # Where it happened: the first frames in the project's code (release traps carry no message).
        grep -E '^ +#[0-9]+ .* /.*/(Sources|Tests)/' "$log" | head -n 3 | sed -E 's/^ +#[0-9]+ 0x[0-9a-f]+ in [^ ]+ /      at /' || true
        # The same binary on the one input, with this run's settings.
        build="Fuzz/run.sh --build-only --target $name"
        [ "$CONFIGURATION" = release ] || build="FUZZ_CONFIGURATION=$CONFIGURATION $build"
        echo "    build: $build"
        report_finding "$log" "$REPO" env "ASAN_OPTIONS=$asan" "SWIFT_BACKTRACE=$SWIFT_BACKTRACE" \
            "CAST_FUZZ_PROPERTIES=${CAST_FUZZ_PROPERTIES:-on}" "${OUT_BIN#"$REPO"/}/fuzz-$name" -timeout="$UNIT_TIMEOUT" -rss_limit_mb=2048 \
            ${options[@]+"${options[@]}"}
    else
        grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$log" | tr '\n' ' ' | sed 's/^/    /'
        echo
    fi
done

echo "fuzz: finished in $(( $(date +%s) - started )) s"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: findings in: ${failed[*]}; each one above says how to reproduce it (see Fuzz/README.md)" >&2
    exit 1
fi
echo "fuzz: no crash, leak, timeout or property violation found"
