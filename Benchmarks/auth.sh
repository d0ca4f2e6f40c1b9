#!/usr/bin/env bash
# Token and cookie verification benchmark (issue "Foundation").
# Runs `openssl speed` and the AuthBench micro-benchmark in the same run, one core each, and
# prints the ratio of uncached RS256 verifications per second to OpenSSL's own verify/s.
# Both divide by CPU time (openssl speed's default, AuthBench via CLOCK_THREAD_CPUTIME_ID), so a
# shared machine slows the run down but does not skew the ratio.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${SECONDS_PER_CASE:-3}"

echo "building AuthBench (release)…" >&2
swift build -c release --package-path AuthBench >/dev/null

openssl_verify=$(taskset -c 0 openssl speed -seconds "$seconds" rsa2048 2>/dev/null \
  | awk '/^rsa 2048 bits/ {print $7}')
results=$(taskset -c 0 AuthBench/.build/release/auth-bench "$seconds")
value() { echo "$results" | awk -v k="$1" '$1 == k {print $2}'; }

uncached=$(value rs256_uncached_per_s)
raw=$(value rsa_raw_verify_per_s)
printf '%-44s %12s\n' "openssl speed rsa2048 verify/s (1 core)" "$openssl_verify"
printf '%-44s %12s\n' "RSAPublicKey verify/s (1 core)" "$raw"
printf '%-44s %12s\n' "uncached RS256 token verifications/s" "$uncached"
printf '%-44s %12.2f  (goal >= 0.90)\n' "ratio uncached / openssl" "$(awk -v a="$uncached" -v b="$openssl_verify" 'BEGIN {print a / b}')"
printf '%-44s %12s ns  (goal < 2000)\n' "cached token verification" "$(value token_cached_ns)"
printf '%-44s %12s ns  (goal < 3000)\n' "session cookie verification" "$(value cookie_verify_ns)"
printf '%-44s %12s ns  (no verified-cookie cache)\n' "session cookie verification, uncached" "$(value cookie_uncached_ns)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
