#!/usr/bin/env bash
# How RSAPublicOperation computes s^e mod n, measured against EVP_PKEY_verify (what
# `openssl speed rsa2048` runs): four variants of one RSA-2048 verification, interleaved in
# batches of 50 calls on one core so the machine's drift hits all four alike.
# Usage: bash Benchmarks/rsa-variants.sh [seconds per round, default 4] [rounds, default 4]
# Needs: a C compiler (the Swift toolchain's clang, or cc) and libssl-dev.
set -euo pipefail
cd "$(dirname "$0")"
compiler="$(command -v clang || command -v cc)" || { echo "error: no C compiler" >&2; exit 1; }
binary="$(mktemp "${TMPDIR:-/tmp}/rsa-variants.XXXXXX")"
trap 'rm -f "$binary"' EXIT
"$compiler" -O2 -o "$binary" RSAVariants/rsa_variants.c -lcrypto
taskset -c 0 "$binary" "${1:-4}" "${2:-4}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
