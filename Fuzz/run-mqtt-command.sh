#!/usr/bin/env bash
# Builds the MQTT command payload fuzzer (libFuzzer + AddressSanitizer) and
# runs it for a bounded time (default 60 s) from the seeds in
# Fuzz/corpus/mqtt-command/. Exits non-zero on any finding; crashing inputs
# are kept in build/fuzz/mqtt-command/artifacts/.
#
#   Fuzz/run-mqtt-command.sh [SECONDS]
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
    sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
SECONDS_TO_RUN=${1:-60}
REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=Support/limits.sh
. "$REPO/Fuzz/Support/limits.sh"
OUT=$REPO/build/fuzz/mqtt-command
mkdir -p "$OUT/corpus" "$OUT/artifacts"
cp "$REPO"/Fuzz/corpus/mqtt-command/* "$OUT/corpus/"

# The parser is pure: the JSON module plus the one Fleet file, no libmosquitto.
# gold warns once per ASan helper symbol ("Cannot export local symbol"); harmless.
swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name FleetCommandFuzz \
    "$REPO"/Sources/JSON/*.swift "$REPO/Sources/Fleet/FleetCommandPayload.swift" \
    "$REPO/Sources/GatewayModel/UpdateRequest.swift" "$REPO/Sources/GatewayModel/UpdateReport.swift" \
    "$REPO/Fuzz/FuzzMQTTCommand.swift" -o "$OUT/fuzz-mqtt-command" \
    2> >(grep -v "Cannot export local symbol" >&2)

echo "fuzz: running for ${SECONDS_TO_RUN} s"
"$OUT/fuzz-mqtt-command" -max_total_time="$SECONDS_TO_RUN" -timeout="$UNIT_TIMEOUT" -rss_limit_mb=2048 -max_len=8192 \
    -artifact_prefix="$OUT/artifacts/" -print_final_stats=1 "$OUT/corpus" 2>&1 | tail -n 12
echo "fuzz: no crash, leak or hang found"
