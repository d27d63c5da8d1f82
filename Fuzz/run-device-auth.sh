#!/usr/bin/env bash
# Builds the device-authentication fuzzer (libFuzzer + AddressSanitizer) from
# the JSON, CastProtocol, SystemSupport and DeviceAuth sources and runs it for a
# bounded time (default 60 s) on the seed corpus in Fuzz/corpus/device-auth/
# plus seeds from a fresh test PKI. Exits non-zero on any finding; crashing
# inputs are kept in build/fuzz-device-auth/artifacts/.
#
#   Fuzz/run-device-auth.sh [SECONDS]
#   FUZZ_DEVICE_AUTH_PKI=DIR Fuzz/run-device-auth.sh   (use DIR's PKI, not a fresh one)
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
SECONDS_TO_RUN=${1:-60}
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/fuzz-device-auth
# shellcheck source=Support/report-finding.sh
. "$REPO/Fuzz/Support/report-finding.sh"
# shellcheck source=Support/limits.sh
. "$REPO/Fuzz/Support/limits.sh"
rm -rf "$OUT/modules" "$OUT/corpus" "$OUT/pki"
mkdir -p "$OUT/modules" "$OUT/corpus" "$OUT/artifacts"

# gold warns once per ASan helper symbol ("Cannot export local symbol"); harmless.
quiet() { "$@" 2> >(grep -v "Cannot export local symbol" >&2); }
SWIFTC=(swiftc "-sanitize=fuzzer,address" -parse-as-library -O -swift-version 6 -I "$OUT/modules")

# OpenSSL's module map; DeviceAuth's C helpers are static inline in its shim.h.
CMODULES=(-I "$REPO/Sources/COpenSSL")

# One object and module per Swift module, in dependency order.
for module in JSON CastProtocol SystemSupport DeviceAuth; do
    extra=()
    if [ "$module" = DeviceAuth ]; then extra=(-enable-testing "${CMODULES[@]}"); fi
    # Every source of the module, subfolders included, as SwiftPM builds it.
    mapfile -t sources < <(find "$REPO/Sources/$module" -name '*.swift' | sort)
    quiet "${SWIFTC[@]}" "${extra[@]}" -module-name "$module" -wmo -c -emit-module \
        -emit-module-path "$OUT/modules/$module.swiftmodule" "${sources[@]}" \
        -o "$OUT/modules/$module.o"
done
quiet "${SWIFTC[@]}" "${CMODULES[@]}" -module-name FuzzDeviceAuth "$REPO/Fuzz/FuzzDeviceAuth.swift" \
    "$OUT/modules"/*.o -lssl -lcrypto -o "$OUT/fuzz-device-auth"

# Seeds: the committed corpus, plus certificates of a fresh test PKI.
if [ -n "${FUZZ_DEVICE_AUTH_PKI:-}" ]; then
    # A finding's PKI (recreated from its log): the same certificates and keys again.
    mkdir -p "$OUT/pki" && cp -R "$FUZZ_DEVICE_AUTH_PKI"/. "$OUT/pki/"
else
    bash "$REPO/Tests/pki/make-test-pki.sh" "$OUT/pki" >/dev/null
fi
cp "$REPO"/Fuzz/corpus/device-auth/* "$OUT/corpus/"
for name in device intermediate audio-device expired-device tls; do
    { printf '\001'; openssl x509 -in "$OUT/pki/$name.pem" -outform DER; } > "$OUT/corpus/der-$name"
    { printf '\004'; openssl x509 -in "$OUT/pki/$name.pem" -outform DER; } > "$OUT/corpus/leaf-$name"
    { printf '\003'; cat "$OUT/pki/$name.pem"; } > "$OUT/corpus/pem-$name"
done

echo "fuzz (device auth): running for ${SECONDS_TO_RUN} s"
log=$OUT/fuzz.log
status=0
CAST_FUZZ_PKI=$OUT/pki "$OUT/fuzz-device-auth" -max_total_time="$SECONDS_TO_RUN" -timeout="$UNIT_TIMEOUT" -rss_limit_mb=2048 \
    -max_len=70000 -artifact_prefix="$OUT/artifacts/" -print_final_stats=1 "$OUT/corpus" >"$log" 2>&1 || status=$?
tail -n 12 "$log"
if [ "$status" -ne 0 ]; then
    echo "fuzz (device auth): FAILED (exit $status); log: ${log#"$REPO"/}"
    echo "    build: FUZZ_DEVICE_AUTH_PKI=pki Fuzz/run-device-auth.sh 1   (builds, with the PKI below, and fuzzes for 1 s)"
    report_finding "$log" "$REPO" env "CAST_FUZZ_PKI=${OUT#"$REPO"/}/pki" "SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}" \
        "${OUT#"$REPO"/}/fuzz-device-auth" -timeout="$UNIT_TIMEOUT" -rss_limit_mb=2048 -max_len=70000
    # The input is checked against this run's fresh test PKI (throwaway keys,
    # made for this run only): the part the target reads, to run it again with
    # FUZZ_DEVICE_AUTH_PKI=DIR.
    echo "    this run's test PKI (anchors, sim-valid, tls.pem):"
    echo "      mkdir -p pki && base64 -d <<'PKI' | tar -C pki -xzf -"
    { tar -C "$OUT/pki" -czf - anchors sim-valid tls.pem | base64 -w 76 | sed 's/^/      /'; } \
        || echo "    (the PKI in ${OUT#"$REPO"/}/pki is incomplete: not packed)"
    echo "      PKI"
    exit 1
fi
echo "fuzz (device auth): no crash, leak or hang found"
