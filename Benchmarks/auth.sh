#!/usr/bin/env bash
# Token and cookie verification benchmark.
# Runs `openssl speed` and the AuthBench micro-benchmark in the same run, one core each, and
# prints the ratio of uncached RS256 verifications per second to OpenSSL's own verify/s.
# Both divide by CPU time (openssl speed's default, AuthBench via CLOCK_THREAD_CPUTIME_ID), so a
# shared machine slows the run down but does not skew the ratio.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${SECONDS_PER_CASE:-3}"

echo "building AuthBench (release)…" >&2
# SwiftPM does not notice source files added to the path dependency: drop the cached manifest.
# Nor does it recompile the benchmark's own source when a library type it uses changes shape
# (a struct becoming a class links against symbols that no longer exist): drop its objects too.
rm -f AuthBench/.build/release.yaml
rm -rf AuthBench/.build/*/release/auth_bench.build
if ! build_log=$(swift build -c release --package-path AuthBench 2>&1); then
  echo "$build_log" >&2
  exit 1
fi

# One process's RSA speed depends on where its heap and libraries landed: `openssl speed` alone
# ranges 35k-42k verify/s from one start to the next here, and the machine drifts too. So OpenSSL
# and the uncached token path alternate (which goes first alternates too), each started ROUNDS
# times, and the medians (and the bests) of the two sides are compared, as well as the median of
# the per-round ratios. Every round's own figures are printed.
rounds="${ROUNDS:-8}"
openssl_all="" uncached_all=""
ratio_all=""
run_openssl() {
  openssl_verify=$(taskset -c 0 openssl speed -seconds "$seconds" rsa2048 2>/dev/null \
    | awk '/^rsa 2048 bits/ {print $7}')
}
run_uncached() {
  uncached=$(AUTHBENCH_ONLY=uncached taskset -c 0 AuthBench/.build/release/auth-bench "$seconds" \
    | awk '$1 == "rs256_uncached_per_s" {print $2}')
}
for round in $(seq "$rounds"); do
  # The order alternates, so neither side always runs first after the other's warm caches.
  if [ $((round % 2)) -eq 1 ]; then run_openssl; run_uncached; else run_uncached; run_openssl; fi
  printf 'round %d: openssl %8.0f/s  uncached token %8.0f/s  ratio %.2f\n' "$round" "$openssl_verify" "$uncached" \
    "$(awk -v a="$uncached" -v b="$openssl_verify" 'BEGIN {print a / b}')"
  openssl_all="$openssl_all $openssl_verify"
  uncached_all="$uncached_all $uncached"
  ratio_all="$ratio_all $(awk -v a="$uncached" -v b="$openssl_verify" 'BEGIN {print a / b}')"
done
median() { echo "$@" | tr ' ' '\n' | grep . | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
best() { echo "$@" | tr ' ' '\n' | grep . | sort -n | tail -1; }
median_openssl=$(median $openssl_all) median_uncached=$(median $uncached_all)
best_openssl=$(best $openssl_all) best_uncached=$(best $uncached_all)
results=$(taskset -c 0 AuthBench/.build/release/auth-bench "$seconds")
value() { echo "$results" | awk -v k="$1" '$1 == k {print $2}'; }

printf '%-48s %9.0f  (best %.0f)\n' "openssl speed rsa2048 verify/s (1 core, median)" "$median_openssl" "$best_openssl"
printf '%-48s %9.0f  (best %.0f)\n' "uncached RS256 token verifications/s (median)" "$median_uncached" "$best_uncached"
printf '%-48s %9s  (%.2f of the openssl median)\n' "RSAPublicKey verify/s alone (1 core, one run)" "$(value rsa_raw_verify_per_s)" \
  "$(awk -v a="$(value rsa_raw_verify_per_s)" -v b="$median_openssl" 'BEGIN {print a / b}')"
printf '%-48s %9.2f  (goal >= 0.90; best / best %.2f)\n' "ratio uncached / openssl (median / median)" \
  "$(awk -v a="$median_uncached" -v b="$median_openssl" 'BEGIN {print a / b}')" \
  "$(awk -v a="$best_uncached" -v b="$best_openssl" 'BEGIN {print a / b}')"
# Each round pairs the two sides a few seconds apart, so its ratio cancels the machine's slower
# drift; the median of those paired ratios is printed next to the ratio of the two medians.
printf '%-48s %9.2f  (goal >= 0.90)\n' "ratio uncached / openssl (median of round ratios)" "$(median $ratio_all)"
printf '%-48s %9s ns  (goal < 2000)\n' "cached token verification" "$(value token_cached_ns)"
printf '%-48s %9s ns  (goal < 3000)\n' "session cookie verification" "$(value cookie_verify_ns)"
printf '%-48s %9s ns  (no verified-cookie cache)\n' "session cookie verification, uncached" "$(value cookie_uncached_ns)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
