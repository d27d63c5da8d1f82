#!/usr/bin/env bash
# deploy/os-list, the Raspberry Pi Imager repository file, on small stand-in
# images (an .img, an .img.xz, an .img.gz; no image is built): every entry
# has the fields Imager's schema requires, its sizes and SHA-256 checksums
# are those of the real files (computed here by other tools), the URL names
# the file (or --base-url), init_format is cloudinit-rpi, the device tags
# are the boards' and all in the file's own device list; badly named or
# broken images are refused with a message. Seconds, no root. The last line
# is `os-list: N passed, M failed`.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
case ${1:-} in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
WORK=$(mktemp -d /tmp/cast-gateway-os-list-test-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=Tests/deploy/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh"

# Stand-ins: random bytes, then a sparse tail (as deploy/image's are).
mkdir -p "$WORK/dist"
make_image() {  # make_image FILE MIB
    head -c 1500000 /dev/urandom > "$1"
    truncate -s "${2}M" "$1"
}
make_image "$WORK/dist/cast-gateway-rpi4.img" 6
make_image "$WORK/raw-rpi3.img" 5
xz -T1 -0 -c "$WORK/raw-rpi3.img" > "$WORK/dist/cast-gateway-rpi3.img.xz"
make_image "$WORK/raw-qemu.img" 4
gzip -1 -c "$WORK/raw-qemu.img" > "$WORK/dist/cast-gateway-qemu-arm64.img.gz"
sha() { sha256sum "$1" | cut -d' ' -f1; }
# What the JSON must say, from the files, by other tools than os-list's.
cat > "$WORK/expected.tsv" <<EXPECTED
cast-gateway-rpi4.img	$(stat -c %s "$WORK/dist/cast-gateway-rpi4.img")	$(sha "$WORK/dist/cast-gateway-rpi4.img")	$(stat -c %s "$WORK/dist/cast-gateway-rpi4.img")	$(sha "$WORK/dist/cast-gateway-rpi4.img")	pi4-64bit	Raspberry Pi 4 Model B	armv8
cast-gateway-rpi3.img.xz	$(stat -c %s "$WORK/raw-rpi3.img")	$(sha "$WORK/raw-rpi3.img")	$(stat -c %s "$WORK/dist/cast-gateway-rpi3.img.xz")	$(sha "$WORK/dist/cast-gateway-rpi3.img.xz")	pi3-64bit	Raspberry Pi 3 Model B	armv8
cast-gateway-qemu-arm64.img.gz	$(stat -c %s "$WORK/raw-qemu.img")	$(sha "$WORK/raw-qemu.img")	$(stat -c %s "$WORK/dist/cast-gateway-qemu-arm64.img.gz")	$(sha "$WORK/dist/cast-gateway-qemu-arm64.img.gz")	cast-gateway-qemu-arm64	QEMU	armv8
EXPECTED

that "deploy/os-list writes the file for three images" \
    bash "$REPO/deploy/os-list" --release-date 2026-01-02 --version 9.8.7 \
        "$WORK/dist/cast-gateway-rpi4.img" "$WORK/dist/cast-gateway-rpi3.img.xz" "$WORK/dist/cast-gateway-qemu-arm64.img.gz"
JSON=$WORK/dist/os_list_cast-gateway.json

# validate JSON EXPECTED BASE: each check prints "ok NAME" or "FAIL NAME".
validate() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
path, expected, base = sys.argv[1], sys.argv[2], sys.argv[3]
doc = json.load(open(path, encoding="utf-8"))
def check(name, condition, detail=""):
    print(("ok " if condition else "FAIL ") + name + ("" if condition else f" ({detail})"))
# Imager's schema (rpi-imager 72ad1179, doc/json-schema/os-list-schema.json):
# os_list is required; each OS entry requires these; init_format is one of
# src/oslistmodel.cpp's VALID_INIT_FORMATS.
REQUIRED = ["name", "description", "icon", "url", "extract_size", "extract_sha256", "image_download_size", "release_date", "devices"]
VALID_INIT = ["", "systemd", "cloudinit", "cloudinit-rpi", "rpi-preseed", "none"]
entries = doc.get("os_list", [])
rows = [line.rstrip("\n").split("\t") for line in open(expected, encoding="utf-8")]
check("one entry per image", len(entries) == len(rows), len(entries))
device_tags = {t for d in doc.get("imager", {}).get("devices", []) for t in d.get("tags", [])}
for d in doc.get("imager", {}).get("devices", []):
    check(f"device {d.get('name')}: name, description and tags", all(k in d for k in ("name", "description", "tags")), d)
for row, entry in zip(rows, entries):
    name, xsize, xsha, dsize, dsha, tag, model, arch = row
    missing = [k for k in REQUIRED + ["image_download_sha256", "init_format"] if k not in entry]
    check(f"{name}: every required field", not missing, missing)
    url = (base.rstrip("/") + "/" + name) if base else "file://" + __import__("os").path.realpath(__import__("os").path.join(__import__("os").path.dirname(path), name))
    check(f"{name}: url", entry.get("url") == url, entry.get("url"))
    check(f"{name}: extract_size is the unpacked image's", entry.get("extract_size") == int(xsize) and isinstance(entry.get("extract_size"), int), entry.get("extract_size"))
    check(f"{name}: extract_sha256 is the unpacked image's", entry.get("extract_sha256") == xsha, entry.get("extract_sha256"))
    check(f"{name}: image_download_size is the file's", entry.get("image_download_size") == int(dsize), entry.get("image_download_size"))
    check(f"{name}: image_download_sha256 is the file's", entry.get("image_download_sha256") == dsha, entry.get("image_download_sha256"))
    check(f"{name}: init_format cloudinit-rpi (valid for Imager)", entry.get("init_format") == "cloudinit-rpi" and entry["init_format"] in VALID_INIT, entry.get("init_format"))
    check(f"{name}: devices [{tag}], in the file's device list", entry.get("devices") == [tag] and tag in device_tags, entry.get("devices"))
    check(f"{name}: named after the board, with the version", model in entry.get("name", "") and "9.8.7" in entry.get("description", ""), entry.get("name"))
    check(f"{name}: release_date and architecture", entry.get("release_date") == "2026-01-02" and entry.get("architecture") == arch, entry)
PY
}
# counted CHECK-OUTPUT: turns validate's lines into this test's counts.
counted() {
    local line
    while IFS= read -r line; do
        case $line in ok\ *) ok "${line#ok }" ;; *) bad "${line#FAIL }" ;; esac
    done
}
counted < <(validate "$JSON" "$WORK/expected.tsv" "" 2>&1 || echo "FAIL the validator failed")

that "--base-url: the URLs are URL/NAME" \
    bash "$REPO/deploy/os-list" --base-url https://images.example/cast-gateway/ --output "$WORK/web.json" --release-date 2026-01-02 --version 9.8.7 \
        "$WORK/dist/cast-gateway-rpi4.img" "$WORK/dist/cast-gateway-rpi3.img.xz" "$WORK/dist/cast-gateway-qemu-arm64.img.gz"
counted < <(validate "$WORK/web.json" "$WORK/expected.tsv" https://images.example/cast-gateway 2>&1 | grep url || echo "FAIL no url checks")

cp "$WORK/dist/cast-gateway-rpi4.img" "$WORK/rpi4-copy.img"
that "an image not named cast-gateway-BOARD.img is refused, saying why" \
    sh -c "! bash '$REPO/deploy/os-list' '$WORK/rpi4-copy.img' 2> '$WORK/err' && grep -q 'not an image deploy/image wrote' '$WORK/err'"
cp "$WORK/dist/cast-gateway-rpi4.img" "$WORK/cast-gateway-toaster.img"
that "an unknown board is refused, naming the profile" \
    sh -c "! bash '$REPO/deploy/os-list' '$WORK/cast-gateway-toaster.img' 2> '$WORK/err' && grep -q 'no board profile .*boards/toaster.conf' '$WORK/err'"
head -c 1000 /dev/urandom > "$WORK/cast-gateway-rpi4.img.xz"
that "a broken .xz is refused, and no file is left half-written" \
    sh -c "! bash '$REPO/deploy/os-list' --output '$WORK/broken.json' '$WORK/cast-gateway-rpi4.img.xz' 2> '$WORK/err' \
        && grep -q 'cannot unpack' '$WORK/err' && [ ! -e '$WORK/broken.json' ]"

echo "os-list: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
