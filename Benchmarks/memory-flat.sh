#!/usr/bin/env bash
# Memory under sustained load (HTTP/1.1 engine and reverse proxy).
# Starts an nginx upstream and the gateway (release build, EVENT_LOOPS=2, ACCESS_LOG=false) on
# loopback, runs `wrk -t1 -c50 -d60s` against the gateway (one second longer, so the sample at
# 60 s is still under load) and samples the gateway's VmRSS every 5 s. Memory is flat when the last sample is within 10% of the first sample after the warm-up.
#
# Environment: DURATION (60, seconds), INTERVAL (5), WARMUP (10, seconds of the run before the
# reference sample), CONNECTIONS (50), EVENT_LOOPS (2), GATEWAY_BIN (else built here),
# WAIT_FOR_WRK (900: seconds to wait first for a wrk run by someone else).
# Needs: nginx-light wrk python3 procps.
set -euo pipefail
source "$(dirname "$0")/common.sh"

duration="${DURATION:-60}"
duration="${duration%s}"
interval="${INTERVAL:-5}"
warmup="${WARMUP:-10}"
connections="${CONNECTIONS:-50}"

binary=$(gateway_binary)
start_upstream
start_gateway "$binary"
check_endpoint gateway "$gateway_port"

echo "machine: $(nproc) cores, $(uname -r); load average at start: $(load_average)"
echo "wrk -t1 -c$connections -d${duration}s http://127.0.0.1:$gateway_port/ ; VmRSS every ${interval} s, warm-up ${warmup} s"
read -r rss hwm < <(rss_kb "$gateway_pid")
mb() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
printf '%8s %10s %10s %12s %s\n' "t (s)" "RSS MB" "HWM MB" "requests" "load (1 5 15)"
printf '%8s %10s %10s %12s %s\n' "before" "$(mb "$rss")" "$(mb "$hwm")" "-" "$(load_average)"

wait_for_other_wrk
wrk -t1 -c"$connections" -d"$((duration + 1))s" "http://127.0.0.1:$gateway_port/" >"$work_dir/wrk.out" &
wrk_pid=$!
started_pids+=("$wrk_pid")
start=$(date +%s.%N)
samples=()
reference=""
for tick in $(seq "$interval" "$interval" "$duration"); do
  # Sleep until `tick` seconds after the start, so sampling drift does not add up.
  sleep "$(awk -v s="$start" -v t="$tick" -v now="$(date +%s.%N)" 'BEGIN {d = s + t - now; print (d > 0 ? d : 0)}')"
  kill -0 "$wrk_pid" 2>/dev/null || break
  read -r rss hwm < <(rss_kb "$gateway_pid")
  requests=$(gateway_metric 'appnative_http_request_duration_seconds_count')
  printf '%8s %10s %10s %12s %s\n' "$tick" "$(mb "$rss")" "$(mb "$hwm")" "$requests" "$(load_average)"
  samples+=("$rss")
  if [ -z "$reference" ] && [ "$tick" -ge "$warmup" ]; then reference=$rss; reference_tick=$tick; fi
done
wait "$wrk_pid" || true
read -r rss_end hwm_end < <(rss_kb "$gateway_pid")
printf '%8s %10s %10s %12s %s\n' "after" "$(mb "$rss_end")" "$(mb "$hwm_end")" "-" "$(load_average)"
echo
grep -E 'requests in|Requests/sec|Non-2xx|Socket errors' "$work_dir/wrk.out" | sed 's/^ *//'

[ -n "$reference" ] || die "no sample after the warm-up (DURATION $duration < WARMUP $warmup?)"
last=${samples[-1]}
change=$(awk -v a="$last" -v b="$reference" 'BEGIN {printf "%+.1f", (a - b) / b * 100}')
verdict=$(awk -v a="$last" -v b="$reference" 'BEGIN {d = (a - b) / b; print ((d <= 0.10 && d >= -0.10) ? "FLAT" : "NOT FLAT")}')
printf '%-44s %10s MB  (t = %s s)\n' "RSS after warm-up" "$(mb "$reference")" "$reference_tick"
printf '%-44s %10s MB\n' "RSS at the last sample" "$(mb "$last")"
printf '%-44s %9s %%  (goal: within ±10%%)\n' "change" "$change"
printf '%-44s %10s\n' "memory under load" "$verdict"
