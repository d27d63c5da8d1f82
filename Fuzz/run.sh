#!/usr/bin/env bash
# Builds a fuzzer (libFuzzer + AddressSanitizer) and runs it for a bounded
# time (default 60 s). Exits non-zero on any finding; crashing inputs are kept
# in build/fuzz/artifacts/.
#
#   Fuzz/run.sh [SECONDS] [TARGET]
#
# TARGET: cast-decoding (default: the CastProtocol decoders) or media-path
# (the media server's request-target validator, seeded from Fuzz/corpus/media-path/).
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
SECONDS_TO_RUN=${1:-60}
TARGET=${2:-cast-decoding}
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/build/fuzz
mkdir -p "$OUT/corpus" "$OUT/artifacts"

if [ "$TARGET" = "media-path" ]; then
    # The repository's seeds are copied: libFuzzer adds what it finds to its first corpus directory.
    mkdir -p "$OUT/corpus-media-path"
    cp "$REPO"/Fuzz/corpus/media-path/* "$OUT/corpus-media-path/"
    swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name MediaPathFuzz \
        "$REPO/Sources/MediaServer/MediaRequestPath.swift" "$REPO/Fuzz/FuzzMediaPath.swift" -o "$OUT/fuzz-media-path" \
        2> >(grep -v "Cannot export local symbol" >&2)
    echo "fuzz: media-path, running for ${SECONDS_TO_RUN} s"
    "$OUT/fuzz-media-path" -max_total_time="$SECONDS_TO_RUN" -timeout=5 -rss_limit_mb=2048 -max_len=8192 \
        -artifact_prefix="$OUT/artifacts/" -print_final_stats=1 "$OUT/corpus-media-path" 2>&1 | tail -n 12
    echo "fuzz: no crash, leak or hang found"
    exit 0
elif [ "$TARGET" != "cast-decoding" ]; then
    echo "fuzz: unknown target '$TARGET' (cast-decoding or media-path)" >&2
    exit 2
fi

# gold warns once per ASan helper symbol ("Cannot export local symbol"); harmless.
swiftc -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name CastProtocolFuzz \
    "$REPO"/Sources/CastProtocol/*.swift "$REPO/Fuzz/FuzzCastDecoding.swift" -o "$OUT/fuzz-cast-decoding" \
    2> >(grep -v "Cannot export local symbol" >&2)

# Seeds: a few well-formed frames, protobuf bodies and JSON payloads.
python3 - "$OUT/corpus" <<'PY'
import os, struct, sys
out = sys.argv[1]
def field(number, wire, payload):
    key = bytes([(number << 3) | wire])
    if wire == 0:
        return key + bytes([payload])
    return key + bytes([len(payload)]) + payload
def message(ns, text):
    return (field(1, 0, 0) + field(2, 2, b"receiver-0") + field(3, 2, b"sender-1") + field(4, 2, ns.encode())
            + field(5, 0, 0) + field(6, 2, text.encode()))
payloads = [
    ("urn:x-cast:com.google.cast.receiver", '{"type":"RECEIVER_STATUS","requestId":1,"status":{"volume":{"level":0.5,"muted":false},"applications":[{"appId":"CC1AD845","sessionId":"s","transportId":"t","namespaces":[{"name":"urn:x-cast:com.google.cast.media"}]}]}}'),
    ("urn:x-cast:com.google.cast.media", '{"type":"MEDIA_STATUS","requestId":0,"status":[{"mediaSessionId":1,"playerState":"PLAYING","currentTime":3.5,"supportedMediaCommands":274447,"media":{"contentId":"x","duration":60,"tracks":[{"trackId":1,"type":"TEXT"}]}}]}'),
    ("urn:x-cast:com.google.cast.tp.heartbeat", '{"type":"PING"}'),
    ("urn:x-cast:com.google.cast.receiver", '{"type":"LAUNCH_ERROR","requestId":2,"reason":"NOT_FOUND"}'),
]
for index, (ns, text) in enumerate(payloads):
    body = message(ns, text)
    open(os.path.join(out, f"frame-{index}"), "wb").write(b"\x00" + struct.pack(">I", len(body)) + body)
    open(os.path.join(out, f"proto-{index}"), "wb").write(b"\x01" + body)
    open(os.path.join(out, f"json-{index}"), "wb").write(b"\x02" + text.encode())
PY

echo "fuzz: running for ${SECONDS_TO_RUN} s"
"$OUT/fuzz-cast-decoding" -max_total_time="$SECONDS_TO_RUN" -timeout=5 -rss_limit_mb=2048 -max_len=70000 \
    -artifact_prefix="$OUT/artifacts/" -print_final_stats=1 "$OUT/corpus" 2>&1 | tail -n 12
echo "fuzz: no crash, leak or hang found"
