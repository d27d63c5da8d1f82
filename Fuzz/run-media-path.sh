#!/usr/bin/env bash
# Builds the media server's request-path fuzzer (libFuzzer + AddressSanitizer)
# from the pure validator (Sources/MediaServer/MediaRequestPath.swift) alone and
# runs it for a bounded time (default 60 s) from the seeds in
# Fuzz/corpus/media-path/. Exits non-zero on any finding; crashing inputs are
# kept in build/fuzz/media-path/artifacts/.
#
#   Fuzz/run-media-path.sh [SECONDS]
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
SECONDS_TO_RUN=${1:-60}
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=Support/limits.sh
. "$REPO/Fuzz/Support/limits.sh"
OUT=$REPO/build/fuzz/media-path
mkdir -p "$OUT/corpus" "$OUT/artifacts"
cp "$REPO"/Fuzz/corpus/media-path/* "$OUT/corpus/"

# gold warns once per ASan helper symbol ("Cannot export local symbol"); harmless.
swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name MediaPathFuzz \
    "$REPO/Sources/MediaServer/MediaRequestPath.swift" "$REPO/Fuzz/FuzzMediaPath.swift" -o "$OUT/fuzz-media-path" \
    2> >(grep -v "Cannot export local symbol" >&2)

echo "fuzz: media-path for ${SECONDS_TO_RUN} s"
"$OUT/fuzz-media-path" -max_total_time="$SECONDS_TO_RUN" -timeout="$UNIT_TIMEOUT" -rss_limit_mb=2048 -max_len=16384 \
    -artifact_prefix="$OUT/artifacts/" -print_final_stats=1 "$OUT/corpus" 2>&1 | tail -n 12
echo "fuzz: no crash, leak or hang found"
