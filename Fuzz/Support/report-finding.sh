# shellcheck shell=bash
# Sourced by Fuzz/run.sh and Fuzz/run-device-auth.sh. After a failed run,
# prints what CI's log must hold to reproduce the finding without the
# artifact files: the exact command, and the input itself (base64).
#
#   report_finding LOG REPO COMMAND...
#
# COMMAND is how the run started the fuzzer, without the corpus directories;
# the artifact's path is appended to it.

# Inputs up to this size are printed whole (the console target's limit is
# 8 KiB); a larger one is printed in part, with its SHA-256.
FUZZ_REPORT_MAX_BYTES=${FUZZ_REPORT_MAX_BYTES:-65536}

report_finding() {
    local log=$1 repo=$2
    shift 2
    local artifact
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    if [ -z "$artifact" ] || [ ! -f "$artifact" ]; then
        echo "    no input was written (the fuzzer failed before running one); see the log"
        return 0
    fi
    local size shown
    size=$(wc -c <"$artifact")
    echo "    reproduce (after building the same way):"
    printf '      cd %q &&' "$repo"
    local word
    for word in "$@" "${artifact#"$repo"/}"; do printf ' %q' "$word"; done
    echo
    shown=$size
    if [ "$size" -gt "$FUZZ_REPORT_MAX_BYTES" ]; then
        shown=$FUZZ_REPORT_MAX_BYTES
        echo "    the input is $size bytes, sha256 $(sha256sum "$artifact" | cut -d' ' -f1); its first $shown bytes:"
    else
        echo "    the input ($size bytes), to recreate it from this log alone:"
    fi
    local relative=${artifact#"$repo"/}
    echo "      mkdir -p $(dirname "$relative") && base64 -d > $relative <<'INPUT'"
    head -c "$shown" "$artifact" | base64 -w 76 | sed 's/^/      /'
    echo "      INPUT"
    local seed
    seed=$(sed -n 's/^INFO: Seed: \([0-9]*\).*/\1/p' "$log" | head -n 1)
    [ -z "$seed" ] || echo "    (libFuzzer's random seed for this run was $seed: add -seed=$seed and the corpus directories to repeat the search itself)"
}
