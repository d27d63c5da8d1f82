#!/usr/bin/env bash
# Runs shellcheck (warnings and errors) over every shell script in deploy/,
# boards/, udev/, Tests/ and .ci/: *.sh files and files whose first line
# names sh or bash.
#
#   Tests/deploy/shellcheck.sh [--list]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
case ${1:-} in
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
command -v shellcheck >/dev/null || { echo "shellcheck: shellcheck not installed: apt-get install shellcheck" >&2; exit 1; }
scripts=()
while IFS= read -r -d '' file; do
    case $file in
        *.sh) scripts+=("$file") ;;
        *) head -c 64 "$file" 2>/dev/null | head -1 | grep -qE '^#!.*(/|env )(ba)?sh( |$)' && scripts+=("$file") ;;
    esac
done < <(cd "$REPO" && find deploy boards udev Tests .ci -type f -not -path '*/.build/*' \
    -not -path 'Tests/deploy/imager/*' -print0 | sort -z)   # imager/: Raspberry Pi Imager's scripts, verbatim
[ ${#scripts[@]} -gt 0 ] || { echo "shellcheck: no scripts found under $REPO" >&2; exit 1; }
if [ "${1:-}" = --list ]; then printf '%s\n' "${scripts[@]}"; exit 0; fi
# -x follows `source` lines; sourced files are resolved from each script's directory.
(cd "$REPO" && shellcheck -S warning -x -P SCRIPTDIR "${scripts[@]}")
echo "shellcheck: ${#scripts[@]} scripts clean"
