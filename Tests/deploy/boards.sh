#!/usr/bin/env bash
# Checks every boards/*.conf against the profile schema (boards/README.md):
# the [board] keys and values, no duplicate keys except config-txt, only
# known sections, and ir-overlay among the config-txt lines. The other
# sections' values are checked by `cast-gateway check-config` in run.sh.
#
#   Tests/deploy/boards.sh [PROFILE...]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
case ${1:-} in -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=("$REPO"/boards/*.conf)
failed=0
for profile in "${profiles[@]}"; do
    name=$(basename "$profile" .conf)
    if ! problems=$(awk -v stem="$name" '
        function problem(text) { print FILENAME ":" FNR ": " text; bad = 1 }
        /^[[:space:]]*(#|$)/ { next }
        /^[[:space:]]*\[/ {
            section = $0; gsub(/[][[:space:]]/, "", section)
            if (section !~ /^(board|console|leds|cec|evdev|lirc)$/) problem("section [" section "] is not allowed in a profile")
            sections[section] = 1; next
        }
        {
            key = $0; sub(/[[:space:]]*=.*/, "", key); sub(/^[[:space:]]*/, "", key)
            value = $0; sub(/^[^=]*=[[:space:]]*/, "", value); sub(/[[:space:]]+#.*$/, "", value)
            if (section == "") { problem("key outside a section"); next }
            if (seen[section, key]++ && key != "config-txt") problem("[" section "] " key " set twice")
            if (section == "board") {
                board[key] = value
                if (key == "config-txt") txt[value] = 1
                else if (key !~ /^(name|model|arch|boot-partition|ir-overlay|ir-decoder|uboot-addresses|uboot-env)$/) problem("unknown [board] key " key)
            }
        }
        END {
            if (board["name"] != stem) problem("[board] name must be " stem ", not \"" board["name"] "\"")
            if (board["model"] == "") problem("[board] model missing")
            if (board["arch"] !~ /^(arm64|amd64)$/) problem("[board] arch must be arm64 or amd64")
            if (board["boot-partition"] !~ /^\//) problem("[board] boot-partition must be an absolute path")
            if (board["ir-decoder"] !~ /^(kernel|lircd)$/) problem("[board] ir-decoder must be kernel or lircd")
            if (board["ir-overlay"] != "" && !(board["ir-overlay"] in txt)) problem("ir-overlay is not among the config-txt lines")
            if (board["ir-decoder"] == "lircd" && !("lirc" in sections)) problem("ir-decoder = lircd but no [lirc] section")
            if (board["ir-overlay"] != "" && board["ir-decoder"] == "kernel" && !("evdev" in sections)) problem("kernel-decoded IR but no [evdev] section")
            if (board["uboot-addresses"] != "" && board["uboot-addresses"] !~ /^[A-Za-z0-9_]+=0x[0-9a-fA-F]+( [A-Za-z0-9_]+=0x[0-9a-fA-F]+)*$/) problem("uboot-addresses must be NAME=0xADDRESS pairs separated by spaces")
            if (board["arch"] == "arm64" && stem != "rpi5" && board["uboot-addresses"] !~ /kernel_addr_r=.*kernel_comp_addr_r=.*ramdisk_addr_r=|kernel_addr_r=.*ramdisk_addr_r=.*kernel_comp_addr_r=/) problem("an arm64 board with an A/B image needs uboot-addresses with kernel_addr_r, kernel_comp_addr_r and ramdisk_addr_r")
            if ((board["uboot-addresses"] != "") != (board["uboot-env"] != "")) problem("uboot-addresses and uboot-env go together (A/B images)")
            if (board["uboot-env"] != "" && board["uboot-env"] !~ /^(fat|script)$/) problem("uboot-env must be fat or script")
            if (!("console" in sections)) problem("no [console] section")
            exit bad
        }' "$profile"); then
        echo "$problems" >&2
        failed=$((failed + 1))
    else
        echo "ok: $name"
    fi
done
[ "$failed" -eq 0 ] || { echo "boards: $failed profile(s) do not follow the schema" >&2; exit 1; }
