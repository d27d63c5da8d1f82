#!/usr/bin/env bash
# Where a process's resident memory is: RSS per mapping (the binary, each
# shared library, the heap and anonymous memory, stacks), from
# /proc/PID/smaps, largest first, as a Markdown table, with how much of it is
# executable text and how much private dirty (written: data, relocations, heap).
#
#   bench/rss-map.sh PID
set -euo pipefail
usage() { echo "usage: bench/rss-map.sh PID   (RSS of each mapping of process PID, from /proc/PID/smaps)"; }
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    "") usage >&2; exit 64 ;;
esac
pid=$1
[ -r "/proc/$pid/smaps" ] || { echo "rss-map: no readable /proc/$pid/smaps: is $pid a running process of yours?" >&2; exit 1; }
{
    echo "| mapping | RSS (kB) | of it executable (r-x) | of it private dirty |"
    echo "|---|---|---|---|"
    awk '
        /^[0-9a-f]+-[0-9a-f]+ / {
            name = ($6 == "") ? "[anonymous]" : $6
            sub(/.*\//, "", name)            # the file name, not its directory
            if (name ~ /^\[stack/) name = "[stack]"
            exec = ($2 ~ /x/)
            next
        }
        /^Rss:/ { rss[name] += $2; total += $2; if (exec) { text[name] += $2; alltext += $2 } }
        /^Private_Dirty:/ { dirty[name] += $2; alldirty += $2 }
        END {
            for (name in rss) if (rss[name] > 0) printf "%d\t%s\t%d\t%d\n", rss[name], name, text[name], dirty[name]
            printf "%d\t**total**\t%d\t%d\n", total, alltext, alldirty
        }' "/proc/$pid/smaps" | sort -rn | awk -F'\t' '{ printf "| %s | %d | %d | %d |\n", $2, $1, $3, $4 }'
}
