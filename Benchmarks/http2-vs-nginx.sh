#!/usr/bin/env bash
# HTTP/2 toward clients: the gateway against nginx's `http2` listener with `proxy_pass`, both in
# front of the same HTTP/1.1 upstream, in the same run.
# Starts on loopback, each with its own temp config and free ports: an nginx upstream (`return
# 200` of a 24-byte body, keep-alive), nginx as an HTTP/2 reverse proxy (`listen … http2`,
# cleartext with prior knowledge; upstream {} with keepalive 64, HTTP/1.1, worker_processes 2,
# the forwarding headers the gateway adds) and the gateway (release build, EVENT_LOOPS=2,
# ACCESS_LOG=false, HTTP2 on by default, every path public). Runs
# `h2load -n REQUESTS -c CLIENTS -m STREAMS` against nginx and the gateway, interleaved
# (nginx gateway nginx gateway …), and prints requests/s and each server's CPU time per request
# (utime+stime from /proc/<pid>/stat of the process and its workers, before and after each run,
# over the requests h2load completed), the upstream's behind it, and the gateway/nginx ratio.
#
# Environment: REQUESTS (200000), CLIENTS (50), STREAMS (10: concurrent streams per
# connection), ROUNDS (3), WARMUP_REQUESTS (20000), EVENT_LOOPS (2), PROXY_WORKERS (2),
# UPSTREAM_WORKERS (1), GATEWAY_BIN (else built here).
# Needs: nginx-light (http_v2), nghttp2-client (h2load), python3, procps.
set -euo pipefail
source "$(dirname "$0")/common.sh"

requests="${REQUESTS:-200000}"
clients="${CLIENTS:-50}"
streams="${STREAMS:-10}"
rounds="${ROUNDS:-3}"
warmup="${WARMUP_REQUESTS:-20000}"
command -v h2load >/dev/null || die "h2load not found (Debian nghttp2-client)"

binary=$(gateway_binary)
start_upstream
nginx_h2_port=$(free_port)
start_nginx h2proxy "
    upstream backend {
        server 127.0.0.1:$upstream_port;
        keepalive 64;
        keepalive_requests 1000000;
        keepalive_timeout 60s;
    }
    http2_max_concurrent_streams 100;
    server {
        listen 127.0.0.1:$nginx_h2_port http2 reuseport;
$(nginx_proxy_location)
    }" "${PROXY_WORKERS:-2}" "$nginx_h2_port"
start_gateway "$binary"
targets=(nginx gateway)
declare -A port=([nginx]=$nginx_h2_port [gateway]=$gateway_port)
declare -A server_pid=([nginx]=$nginx_pid [gateway]=$gateway_pid)

# h2load against a target: the whole output; dies unless every request succeeded over h2.
run_h2load() {
  local target="$1" count="$2" out
  out=$(h2load -n "$count" -c "$clients" -m "$streams" "http://127.0.0.1:${port[$target]}/" 2>&1) ||
    die "h2load against $target failed: $(echo "$out" | tail -5)"
  echo "$out" | grep -q "Application protocol: h2c" || die "$target did not speak h2c: $(echo "$out" | tail -5)"
  echo "$out" | grep -q "$count succeeded, 0 failed, 0 errored" || die "$target: $(echo "$out" | grep 'requests:')"
  echo "$out"
}

for target in "${targets[@]}"; do run_h2load "$target" "$warmup" >/dev/null; done

echo "machine: $(nproc) cores, $(uname -r); load average at start: $(load_average)"
echo "h2load -n $requests -c $clients -m $streams http://127.0.0.1:PORT/  (rounds: $rounds, warm-up: $warmup requests each)"
echo "upstream: nginx, worker_processes ${UPSTREAM_WORKERS:-1}; nginx h2 proxy: worker_processes ${PROXY_WORKERS:-2}, keepalive 64;" \
  "gateway: EVENT_LOOPS=${EVENT_LOOPS:-2}, ACCESS_LOG=false"
echo
printf '%-5s %-8s %10s %12s %6s %14s %12s %s\n' run target "req/s" "cpu us/req" user "upstr us/req" "other cores" "load (1 5 15)"
declare -A sum_cpu sum_rps
for round in $(seq 1 "$rounds"); do
  for target in "${targets[@]}"; do
    load=$(load_average)
    machine_before=$(machine_busy_ticks)
    read_children_ticks
    children_before=$children_ticks_now
    read -r user_before sys_before < <(cpu_ticks "${server_pid[$target]}")
    up_before=$(ticks_sum "$upstream_pid")
    out=$(run_h2load "$target" "$requests")
    read -r user_after sys_after < <(cpu_ticks "${server_pid[$target]}")
    up_after=$(ticks_sum "$upstream_pid")
    read_children_ticks
    children_after=$children_ticks_now
    machine_after=$(machine_busy_ticks)
    before=$((user_before + sys_before))
    after=$((user_after + sys_after))
    user_share=$(awk -v u=$((user_after - user_before)) -v t=$((after - before)) 'BEGIN {printf "%.0f%%", t ? 100 * u / t : 0}')
    rps=$(echo "$out" | awk '/^finished in/ {print $4}')
    seconds=$(echo "$out" | awk '/^finished in/ {v = $3; sub(/s,?$/, "", v); if ($3 ~ /ms,?$/) {sub(/m$/, "", v); v /= 1000}; print v}')
    cpu=$(awk -v t=$((after - before)) -v hz="$clock_ticks" -v n="$requests" 'BEGIN {printf "%.1f", t / hz / n * 1e6}')
    upcpu=$(awk -v t=$((up_after - up_before)) -v hz="$clock_ticks" -v n="$requests" 'BEGIN {printf "%.1f", t / hz / n * 1e6}')
    ours=$((after - before + children_after - children_before + up_after - up_before))
    others=$(awk -v m=$((machine_after - machine_before)) -v o="$ours" -v hz="$clock_ticks" -v s="$seconds" \
      'BEGIN {v = s > 0 ? (m - o) / hz / s : 0; printf "%.2f", v < 0 ? 0 : v}')
    printf '%-5s %-8s %10.0f %12s %6s %14s %12s %s\n' "$round" "$target" "$rps" "$cpu" "$user_share" "$upcpu" "$others" "$load"
    sum_cpu[$target]=$(awk -v a="${sum_cpu[$target]:-0}" -v b="$cpu" 'BEGIN {print a + b}')
    sum_rps[$target]=$(awk -v a="${sum_rps[$target]:-0}" -v b="$rps" 'BEGIN {print a + b}')
  done
done

echo
echo "averages over $rounds rounds (load average at end: $(load_average)):"
for target in "${targets[@]}"; do
  printf '%-8s %10.0f req/s %8.1f cpu us/req\n' "$target" \
    "$(awk -v s="${sum_rps[$target]}" -v n="$rounds" 'BEGIN {print s / n}')" \
    "$(awk -v s="${sum_cpu[$target]}" -v n="$rounds" 'BEGIN {print s / n}')"
done
awk -v g="${sum_cpu[gateway]}" -v n="${sum_cpu[nginx]}" 'BEGIN {printf "gateway / nginx CPU per request: %.2fx (goal: at most 1.0x)\n", (n > 0 ? g / n : 0)}'
