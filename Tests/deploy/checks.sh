# Sourced by the deploy tests: counted checks, one line each, and the
# totals the caller prints at its end ("NAME: $passed passed, $failed failed").
#   ok TEXT / bad TEXT        count a check that passed / failed
#   that NAME COMMAND...      run COMMAND and count it as NAME
#   run_case NAME FUNCTION    a case whose output goes to $WORK/case.log and
#                             is shown (its last $CASE_LOG_LINES lines) only when it fails
# shellcheck shell=bash
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
that() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else bad "$name"; fi
}
log() { echo "$*" >> "$WORK/case.log"; }
run_case() {
    local name=$1 start
    start=$(date +%s)
    : > "$WORK/case.log"
    if "$2" >> "$WORK/case.log" 2>&1; then
        passed=$((passed + 1))
        echo "ok - $name ($(( $(date +%s) - start )) s)"
    else
        failed=$((failed + 1))
        echo "FAIL - $name"
        sed 's/^/    /' "$WORK/case.log" | tail -"${CASE_LOG_LINES:-40}"
    fi
}
