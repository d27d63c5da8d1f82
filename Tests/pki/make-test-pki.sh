#!/usr/bin/env bash
# Makes a throw-away Cast-like PKI for the device-authentication tests with
# the openssl CLI. Nothing here is a real Cast certificate.
#
#   Tests/pki/make-test-pki.sh OUTPUT_DIR
#
# OUTPUT_DIR/
#   anchors/root.pem, anchors/crl/crl-root.pem   trust anchors ([cast] trust-anchors)
#   unknown-anchors/unknown-root.pem             a root that signed nothing the tests trust
#   root.*, intermediate.*, crl-root.*, crl-signer.*, unknown-*.*
#   sim-valid/ sim-audio/ sim-expired/ sim-unknown-root/ sim-no-signing/ sim-weak-key/
#       device.key, device.pem, intermediates.pem: one simulator --device-auth DIR each
#   tls.key + tls.pem        the simulator's TLS certificate (P-256, 2 days)
#   tls-long.key + tls-long.pem   a TLS certificate valid for 30 days (too long for Cast)
set -euo pipefail

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then usage; exit 0; fi
if [ $# -ne 1 ]; then usage >&2; exit 2; fi

OUT=$1
mkdir -p "$OUT"
cd "$OUT"
export OPENSSL_CONF=/dev/null   # no site configuration changes the certificates

cat > ext.cnf <<'CNF'
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid

[intermediate]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid

[device]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth

[audio_device]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
certificatePolicies = 1.3.6.1.4.1.11129.2.5.2

[no_signing_device]
basicConstraints = critical, CA:FALSE
keyUsage = critical, keyEncipherment

[crl_signer]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
CNF

serial=100
# issue NAME CN ISSUER SECTION [KEYSPEC]: NAME.key + NAME.pem signed by ISSUER.
issue() {
    local name=$1 cn=$2 issuer=$3 section=$4 keyspec=${5:-rsa:2048}
    serial=$((serial + 1))
    openssl req -new -newkey "$keyspec" -nodes -keyout "$name.key" -subj "/O=cast-gateway tests/CN=$cn" \
        -out "$name.csr" 2>/dev/null
    openssl x509 -req -in "$name.csr" -CA "$issuer.pem" -CAkey "$issuer.key" -set_serial "$serial" -days 3650 \
        -sha256 -extfile ext.cnf -extensions "$section" -out "$name.pem" 2>/dev/null
}
selfsigned() {
    local name=$1 cn=$2
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$name.key" -subj "/O=cast-gateway tests/CN=$cn" -days 3650 \
        -sha256 -config ext.cnf -extensions ca -out "$name.pem" 2>/dev/null
}

selfsigned root "Test Cast Root CA"
issue intermediate "Test Cast Intermediate CA" root intermediate
issue device "test-device-0001" intermediate device
issue audio-device "test-audio-device-0002" intermediate audio_device
issue no-signing-device "test-device-no-signing" intermediate no_signing_device
issue weak-device "test-device-weak-key" intermediate device rsa:1024
selfsigned unknown-root "Unknown Root CA"
issue unknown-intermediate "Unknown Intermediate CA" unknown-root intermediate
issue unknown-device "test-device-unknown" unknown-intermediate device
selfsigned crl-root "Test Cast CRL Root CA"
issue crl-signer "Test Cast CRL Signer" crl-root crl_signer

# An expired device certificate: `openssl ca` takes explicit dates.
openssl req -new -newkey rsa:2048 -nodes -keyout expired-device.key -subj "/O=cast-gateway tests/CN=test-device-expired" \
    -out expired-device.csr 2>/dev/null
: > index.txt
echo 1000 > serial.txt
cat > ca.cnf <<'CNF'
[ca]
default_ca = intermediate_ca
[intermediate_ca]
database = index.txt
serial = serial.txt
new_certs_dir = .
default_md = sha256
policy = any_name
unique_subject = no
copy_extensions = none
[any_name]
organizationName = optional
commonName = supplied
[device]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
CNF
openssl ca -batch -config ca.cnf -cert intermediate.pem -keyfile intermediate.key -in expired-device.csr \
    -startdate 20200101000000Z -enddate 20210101000000Z -extensions device -notext -out expired-device.pem 2>/dev/null

mkdir -p anchors/crl unknown-anchors
cp root.pem anchors/
cp crl-root.pem anchors/crl/
cp unknown-root.pem unknown-anchors/

# simdir DIR DEVICE ISSUER_CHAIN...
simdir() {
    local dir=$1 device=$2
    shift 2
    mkdir -p "$dir"
    cp "$device.key" "$dir/device.key"
    cp "$device.pem" "$dir/device.pem"
    : > "$dir/intermediates.pem"
    for issuer in "$@"; do cat "$issuer.pem" >> "$dir/intermediates.pem"; done
}
simdir sim-valid device intermediate
simdir sim-audio audio-device intermediate
simdir sim-expired expired-device intermediate
simdir sim-unknown-root unknown-device unknown-intermediate
simdir sim-no-signing no-signing-device intermediate
simdir sim-weak-key weak-device intermediate

# The simulator's TLS certificates: short-lived like a receiver's, and one too long-lived.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout tls.key -subj "/CN=cast-receiver-sim" \
    -days 2 -out tls.pem 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout tls-long.key -subj "/CN=cast-receiver-sim" \
    -days 30 -out tls-long.pem 2>/dev/null
rm -f ./*.csr
echo "test PKI in $OUT"
