#!/usr/bin/env bash
# Regenerates the key fixtures used by AppNativeCryptoTests' key-policy tests.
# TEST FIXTURES ONLY: most of these keys exist to be rejected; never use any of them for anything.
# Run from this folder: bash generate.sh
set -euo pipefail
cd "$(dirname "$0")"

# RSA 1024 (too small: must be rejected as weakKey).
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out rsa-1024.pem
openssl pkey -in rsa-1024.pem -pubout -out rsa-1024-public.pem

# RSA 2048 with e = 3 (must be rejected as unsupportedKey).
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_keygen_pubexp:3 -out rsa-2048-e3.pem

# RSA 2048 in the traditional PKCS #1 form ("RSA PRIVATE KEY"), accepted by RSAPrivateKey.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 | openssl pkey -traditional -out rsa-2048-pkcs1.pem

# P-384 (wrong curve for P256SigningKey / P256PublicKey).
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -pkeyopt ec_param_enc:named_curve -out p384.pem
openssl pkey -in p384.pem -pubout -out p384-public.pem

# P-256 in SEC 1 form ("EC PRIVATE KEY") preceded by an "EC PARAMETERS" block, as `openssl ecparam -genkey` writes it.
openssl ecparam -name prime256v1 -genkey -out p256-sec1.pem

# P-256 PKCS #8 encrypted with a password (encrypted keys are refused).
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 |
  openssl pkcs8 -topk8 -v2 aes-256-cbc -passout pass:fixture -out p256-encrypted.pem

# Ed25519 (not an EC P-256 key).
openssl genpkey -algorithm ED25519 -out ed25519.pem

# A self-signed certificate (a CERTIFICATE block is not a key).
openssl req -x509 -new -key p384.pem -subj "/CN=AppNative fixture (not a key)" -days 1 -out certificate.pem
