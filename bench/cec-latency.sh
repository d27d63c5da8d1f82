#!/usr/bin/env bash
# CEC key -> Cast frame written, p50/p99, on the virtual board (qemu, TCG):
# runs bench/cec-latency-board.sh there through Tests/board/run.sh and prints
# its figure. The board runs the debug build under emulation, so the figure
# is an upper bound for real hardware; the LIRC figure in bench/run.sh is
# taken natively, from a release build.
#
#   sudo bench/cec-latency.sh        (200 keys)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
swift build --product cast-gateway-bench >/dev/null
swift build >/dev/null
log=$(mktemp)
trap 'rm -f "$log"' EXIT
KEEP_BOARD=1 Tests/board/run.sh bench/cec-latency-board.sh 2>&1 | tee "$log" >&2
work=$(sed -n 's/^board: keeping //p' "$log")
[ -n "$work" ] || { echo "cec-latency: the board run kept no results" >&2; exit 1; }
grep "^cec events=" "$work"/share-cec-latency-board/cec-latency.txt
rm -rf "$work"
