#!/usr/bin/env bash
# DEV AND TEST KEYS ONLY — never use in production.
#
# Regenerates every file under keys/dev/ and keys/test/ with the openssl CLI (OpenSSL 3.x),
# using only the config written below (the system openssl.cnf is not read).
# Rerunnable: each run replaces ALL keys with new ones (the dev identity provider key behind
# kid "appnative-dev-1", the session secret, the test CA and the localhost certificate).
# Commit the result; nothing else needs changing, since every consumer reads these files.
#
# Usage: bash keys/generate.sh
set -euo pipefail
umask 077

here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/dev" "$work/test"

# A P-256 private key in unencrypted PKCS #8 PEM ("BEGIN PRIVATE KEY", the APNs .p8 shape).
p256() {
  openssl genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -pkeyopt ec_param_enc:named_curve -out "$1"
}

# --- keys/dev: what `make run` uses --------------------------------------------------------
# Dev identity provider (stands in for Entra ID): RSA 2048, e = 65537, PKCS #8. kid "appnative-dev-1".
openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_keygen_pubexp:65537 \
  -out "$work/dev/entra-dev-rsa.pem"
# Signs identity assertions the gateway injects upstream (ES256).
p256 "$work/dev/assertion-dev-p256.pem"
# Fake APNs auth key (.p8).
p256 "$work/dev/apns-dev.p8"
# Session cookie secret: 32 random bytes as 64 lower-case hex characters, no trailing newline.
printf '%s' "$(openssl rand -hex 32)" >"$work/dev/session-secret.txt"

# --- keys/test: what tests use -------------------------------------------------------------
cat >"$work/ca.cnf" <<'CNF'
[req]
distinguished_name = dn
prompt = no
x509_extensions = ca_ext
[dn]
O = AppNative
CN = AppNative Test CA - DO NOT TRUST
[ca_ext]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
CNF

cat >"$work/leaf.cnf" <<'CNF'
[req]
distinguished_name = dn
prompt = no
[dn]
O = AppNative
CN = localhost
[server_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1, IP:::1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
CNF

# Test CA: P-256, self-signed, 20 years.
p256 "$work/test/ca-key.pem"
openssl req -x509 -new -config "$work/ca.cnf" -key "$work/test/ca-key.pem" -sha256 -days 7305 \
  -set_serial "0x$(openssl rand -hex 16)" -out "$work/test/ca.pem"

# localhost server certificate signed by the test CA: P-256, SAN localhost / 127.0.0.1 / ::1, 20 years.
p256 "$work/test/localhost-key.pem"
openssl req -new -config "$work/leaf.cnf" -key "$work/test/localhost-key.pem" -sha256 -out "$work/localhost.csr"
openssl x509 -req -in "$work/localhost.csr" -CA "$work/test/ca.pem" -CAkey "$work/test/ca-key.pem" \
  -sha256 -days 7305 -set_serial "0x$(openssl rand -hex 16)" \
  -extfile "$work/leaf.cnf" -extensions server_ext -out "$work/test/localhost.pem"
openssl verify -CAfile "$work/test/ca.pem" "$work/test/localhost.pem" >/dev/null

# Fake APNs auth key for tests (.p8).
p256 "$work/test/apns-test.p8"

# Keys private to the owner, certificates readable; then move everything into place.
chmod 600 "$work"/dev/* "$work"/test/*
chmod 644 "$work/test/ca.pem" "$work/test/localhost.pem"
mkdir -p "$here/dev" "$here/test"
cp -p "$work"/dev/* "$here/dev/"
cp -p "$work"/test/* "$here/test/"
echo "regenerated dev and test keys in $here"
