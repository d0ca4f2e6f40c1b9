#!/usr/bin/env bash
# Reverse-proxy benchmark (HTTP/1.1 engine and reverse proxy).
# Starts on loopback, each with its own temp config and free ports: an nginx upstream
# (`return 200` of a 24-byte body, keep-alive), nginx as a reverse proxy in front of it
# (upstream {} with keepalive 64, HTTP/1.1, worker_processes 2, the same forwarding headers the
# gateway adds) and the gateway (release build, EVENT_LOOPS=2, ACCESS_LOG=false). Runs
# `wrk -t1 -c50 -d10s --latency` against (a) the upstream, (b) nginx, (c) the gateway,
# interleaved (a b c a b c), and prints requests/s, p50/p99 and each server's CPU time per
# request (utime+stime from /proc/<pid>/stat of the process and its workers, before and after
# each run, over the requests wrk completed).
#
# Columns: cpu us/req is the server's CPU time per request (for (a) the upstream's; "user" is its
# user-space share, the rest is kernel time), upstr us/req the upstream's behind a proxy, other
# cores the CPU used meanwhile by processes outside the benchmark (a noisy machine shows here).
#
# Environment: DURATION (10s), CONNECTIONS (50), THREADS (1), ROUNDS (2), WARMUP (2s, per target),
# EVENT_LOOPS (2), PROXY_WORKERS (2), UPSTREAM_WORKERS (1), GATEWAY_BIN (else built here),
# COMPARE_GATEWAY_BIN (optional: a second gateway build, run as (d) in every round, for A/B),
# WAIT_FOR_WRK (900: seconds to wait, before each run, for a wrk run by someone else).
# Needs: nginx-light wrk python3 procps. About 70 s with the defaults.
set -euo pipefail
source "$(dirname "$0")/common.sh"

duration="${DURATION:-10s}"
connections="${CONNECTIONS:-50}"
threads="${THREADS:-1}"
rounds="${ROUNDS:-2}"
warmup="${WARMUP:-2s}"

binary=$(gateway_binary)
start_upstream
start_nginx_proxy
targets=(upstream nginx gateway)
declare -A port=([upstream]=$upstream_port [nginx]=$nginx_proxy_port)
declare -A server_pid=([upstream]=$upstream_pid [nginx]=$nginx_proxy_pid)
if [ -n "${COMPARE_GATEWAY_BIN:-}" ]; then
  # A/B: a second gateway build in front of the same upstream, run as target (d) in each round.
  start_gateway "$COMPARE_GATEWAY_BIN"
  port[gateway-b]=$gateway_port
  server_pid[gateway-b]=$gateway_pid
  targets+=(gateway-b)
fi
start_gateway "$binary"
port[gateway]=$gateway_port
server_pid[gateway]=$gateway_pid
for target in "${targets[@]}"; do check_endpoint "$target" "${port[$target]}"; done

echo "machine: $(nproc) cores, $(uname -r); load average at start: $(load_average)"
echo "wrk -t$threads -c$connections -d$duration --latency http://127.0.0.1:PORT/  (rounds: $rounds, warm-up: $warmup each)"
echo "upstream: nginx, worker_processes ${UPSTREAM_WORKERS:-1}; nginx proxy: worker_processes ${PROXY_WORKERS:-2}, keepalive 64;" \
  "gateway: EVENT_LOOPS=${EVENT_LOOPS:-2}, ACCESS_LOG=false"
echo

# wrk against a target; on failure says which target and whether its server is still running.
run_wrk() {
  local target="$1"
  shift
  if ! wrk "$@" "http://127.0.0.1:${port[$target]}/"; then
    kill -0 "${server_pid[$target]}" 2>/dev/null && state="still running" || state="not running any more"
    die "wrk against $target (port ${port[$target]}) failed; its server (pid ${server_pid[$target]}) is $state$(
      [ "${target#gateway}" != "$target" ] && printf '; gateway stderr:\n%s' "$(tail -5 "$work_dir"/gateway-*.err)")"
  fi
}

if [ "$warmup" != "0" ] && [ "$warmup" != "0s" ]; then
  for target in "${targets[@]}"; do
    run_wrk "$target" -t"$threads" -c"$connections" -d"$warmup" >/dev/null
  done
fi

# wrk latency with its unit (us, ms, s, m) in milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN {
    n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
    if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
    printf "%.3f", n }'
}

declare -A sum_rps sum_p50 sum_p99 sum_cpu sum_upcpu
printf '%-5s %-9s %10s %9s %9s %12s %6s %14s %7s %12s %s\n' \
  run target "req/s" "p50 ms" "p99 ms" "cpu us/req" "user" "upstr us/req" errors "other cores" "load (1 5 15)"
for round in $(seq 1 "$rounds"); do
  for target in "${targets[@]}"; do
    wait_for_other_wrk
    load=$(load_average)
    machine_before=$(machine_busy_ticks)
    read_children_ticks
    children_before=$children_ticks_now
    read -r user_before sys_before < <(cpu_ticks "${server_pid[$target]}")
    up_before=$(ticks_sum "$upstream_pid")
    out=$(run_wrk "$target" -t"$threads" -c"$connections" -d"$duration" --latency)
    read -r user_after sys_after < <(cpu_ticks "${server_pid[$target]}")
    up_after=$(ticks_sum "$upstream_pid")
    before=$((user_before + sys_before))
    after=$((user_after + sys_after))
    user_share=$(awk -v u=$((user_after - user_before)) -v t=$((after - before)) 'BEGIN {printf "%.0f%%", t ? 100 * u / t : 0}')
    read_children_ticks
    children_after=$children_ticks_now
    machine_after=$(machine_busy_ticks)

    rps=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
    requests=$(echo "$out" | awk '/ requests in / {print $1}')
    p50=$(to_ms "$(echo "$out" | awk '$1 == "50%" {print $2}')")
    p99=$(to_ms "$(echo "$out" | awk '$1 == "99%" {print $2}')")
    non2xx=$(echo "$out" | awk '/Non-2xx or 3xx responses:/ {print $NF}')
    socket=$(echo "$out" | awk -F'[ ,]+' '/Socket errors:/ {print $4 + $6 + $8 + $10}')
    errors=$(( ${non2xx:-0} + ${socket:-0} ))
    cpu=$(awk -v t=$((after - before)) -v hz="$clock_ticks" -v n="$requests" 'BEGIN {printf "%.1f", t / hz / n * 1e6}')
    upcpu="-"
    if [ "$target" != upstream ]; then
      upcpu=$(awk -v t=$((up_after - up_before)) -v hz="$clock_ticks" -v n="$requests" 'BEGIN {printf "%.1f", t / hz / n * 1e6}')
    fi
    # Cores busy with anything but the servers under test and wrk (another build, say).
    ours=$((after - before + children_after - children_before))
    [ "$target" = upstream ] || ours=$((ours + up_after - up_before))
    seconds=$(echo "$out" | awk '/ requests in / {sub(/s,?$/, "", $4); print $4}')
    others=$(awk -v m=$((machine_after - machine_before)) -v o="$ours" -v hz="$clock_ticks" -v s="$seconds" \
      'BEGIN {v = (m - o) / hz / s; printf "%.2f", v < 0 ? 0 : v}')
    printf '%-5s %-9s %10.0f %9s %9s %12s %6s %14s %7s %12s %s\n' \
      "$round" "$target" "$rps" "$p50" "$p99" "$cpu" "$user_share" "$upcpu" "$errors" "$others" "$load"

    sum_rps[$target]=$(awk -v a="${sum_rps[$target]:-0}" -v b="$rps" 'BEGIN {print a + b}')
    sum_p50[$target]=$(awk -v a="${sum_p50[$target]:-0}" -v b="$p50" 'BEGIN {print a + b}')
    sum_p99[$target]=$(awk -v a="${sum_p99[$target]:-0}" -v b="$p99" 'BEGIN {print a + b}')
    sum_cpu[$target]=$(awk -v a="${sum_cpu[$target]:-0}" -v b="$cpu" 'BEGIN {print a + b}')
    [ "$upcpu" = "-" ] || sum_upcpu[$target]=$(awk -v a="${sum_upcpu[$target]:-0}" -v b="$upcpu" 'BEGIN {print a + b}')
  done
done

avg() { awk -v s="$1" -v n="$rounds" -v f="$2" 'BEGIN {printf f, s / n}'; }
echo
echo "averages over $rounds rounds (load average at end: $(load_average)):"
printf '%-22s %10s %9s %9s %12s %14s\n' target "req/s" "p50 ms" "p99 ms" "cpu us/req" "upstr us/req"
declare -A label=([upstream]="(a) upstream direct" [nginx]="(b) nginx proxy" [gateway]="(c) gateway" [gateway-b]="(d) gateway B")
declare -A avg_rps avg_p99 avg_cpu
for target in "${targets[@]}"; do
  avg_rps[$target]=$(avg "${sum_rps[$target]}" "%.0f")
  avg_p99[$target]=$(avg "${sum_p99[$target]}" "%.3f")
  avg_cpu[$target]=$(avg "${sum_cpu[$target]}" "%.1f")
  upcpu="-"
  [ "$target" = upstream ] || upcpu=$(avg "${sum_upcpu[$target]}" "%.1f")
  printf '%-22s %10s %9s %9s %12s %14s\n' "${label[$target]}" "${avg_rps[$target]}" \
    "$(avg "${sum_p50[$target]}" "%.3f")" "${avg_p99[$target]}" "${avg_cpu[$target]}" "$upcpu"
done
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
printf '%-44s %8s  (goal >= 1.00)\n' "throughput gateway / nginx" "$(ratio "${avg_rps[gateway]}" "${avg_rps[nginx]}")"
printf '%-44s %8s  (goal <= 1.00)\n' "p99 latency gateway / nginx" "$(ratio "${avg_p99[gateway]}" "${avg_p99[nginx]}")"
printf '%-44s %8s  (lower is better)\n' "CPU time per request gateway / nginx" "$(ratio "${avg_cpu[gateway]}" "${avg_cpu[nginx]}")"
if [ -n "${COMPARE_GATEWAY_BIN:-}" ]; then
  echo "(d) gateway B = $COMPARE_GATEWAY_BIN"
  printf '%-44s %8s\n' "throughput gateway B / gateway" "$(ratio "${avg_rps[gateway-b]}" "${avg_rps[gateway]}")"
  printf '%-44s %8s\n' "CPU time per request gateway B / gateway" "$(ratio "${avg_cpu[gateway-b]}" "${avg_cpu[gateway]}")"
fi
