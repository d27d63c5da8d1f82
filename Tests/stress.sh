#!/usr/bin/env bash
# Repeats the unit and integration tests (swift test) N times with both cores
# kept busy, the way CI meets them on a loaded machine, and reports every
# failing test with the run's seed (CAST_TEST_SEED, which tests with random
# inputs use) so a failure can be repeated exactly.
#
#   Tests/stress.sh [N] [--filter PATTERN]    (N defaults to 5)
#
# The load is stress-ng (2 CPU workers) when installed, else two busy shell
# loops; both run at normal priority and are stopped by pid at the end, even
# when the script is interrupted. Logs: build/stress/run-K.log.
# Exits non-zero when any run failed; the last line is "stress: N passed, M failed"
# (runs, not test cases).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
RUNS=5
FILTER=()
while [ $# -gt 0 ]; do
    case "$1" in
        --filter) [ $# -ge 2 ] || { echo "stress: --filter needs a pattern" >&2; exit 64; }; FILTER=(--filter "$2"); shift ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        ''|*[!0-9]*) echo "stress: unknown argument '$1' (try --help)" >&2; exit 64 ;;
        *) RUNS=$1 ;;
    esac
    shift
done
OUT=$REPO/build/stress
mkdir -p "$OUT"

echo "stress: building"
swift build --build-tests >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log" >&2; echo "stress: build failed" >&2; exit 1; }

LOAD_PIDS=()
stop_load() {
    [ ${#LOAD_PIDS[@]} -gt 0 ] && kill "${LOAD_PIDS[@]}" 2>/dev/null || true
    for pid in ${LOAD_PIDS[@]+"${LOAD_PIDS[@]}"}; do wait "$pid" 2>/dev/null || true; done
    LOAD_PIDS=()
}
trap stop_load EXIT
if command -v stress-ng >/dev/null; then
    stress-ng --cpu 2 --quiet >/dev/null 2>&1 &
    LOAD_PIDS+=($!)
    echo "stress: load is stress-ng --cpu 2 (pid ${LOAD_PIDS[*]})"
else
    for _ in 1 2; do
        bash -c 'while :; do :; done' &
        LOAD_PIDS+=($!)
    done
    echo "stress: load is two busy loops (pids ${LOAD_PIDS[*]})"
fi

passed=0
failed=0
for run in $(seq 1 "$RUNS"); do
    seed=$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')
    log=$OUT/run-$run.log
    started=$(date +%s)
    set +e
    CAST_TEST_SEED=$seed swift test --skip-build ${FILTER[@]+"${FILTER[@]}"} >"$log" 2>&1
    status=$?
    set -e
    summary=$(grep -E "^\s*Executed [0-9]+ tests?, with" "$log" | tail -1 | sed 's/^[[:space:]]*//')
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        echo "stress: run $run/$RUNS passed in $(( $(date +%s) - started )) s (seed $seed): $summary"
    else
        failed=$((failed + 1))
        echo "stress: run $run/$RUNS FAILED (exit $status, seed $seed): ${summary:-no summary}; log: ${log#"$REPO"/}"
        grep -E "error: |Test Case .* failed" "$log" | cut -c1-300 | head -n 20 | sed "s/^/    /"
        echo "    repeat: CAST_TEST_SEED=$seed swift test --skip-build --filter TESTNAME"
    fi
done
stop_load
echo "stress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
