#!/usr/bin/env bash
# Native-routes benchmark: what serving the app's routes through the gateway costs.
#
# One run, on loopback, against the example upstream of docs/upstream-contract.md
# (docs/examples/native_upstream.py, Python standard library):
#   1. device registrations (POST /api/devices, the same valid body each time) per second,
#      wrk -t1 -c$CONNECTIONS -d$DURATION, interleaved ROUNDS times:
#        direct    to the upstream, with the identity headers the gateway would add
#        gateway   through the gateway with a Bearer token (verified, body validated by the
#                  models, forwarded with the identity)
#      and the ratio gateway/direct (the gateway's overhead on this upstream);
#   2. a 25 MB document upload (multipart, curl -F) through the gateway: wall time, and the
#      gateway's peak RSS (VmHWM) before and after.
#
# Needs (Debian): wrk, curl, python3, procps; a release build (GATEWAY_BIN or built here).
# Settings: DURATION (10s), CONNECTIONS (10), ROUNDS (2), EVENT_LOOPS (2).
set -euo pipefail

source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh"

duration="${DURATION:-10s}"
connections="${CONNECTIONS:-10}"
rounds="${ROUNDS:-2}"
binary=$(gateway_binary)

# The dev identity provider's key set, served on loopback; a dev token for it.
"$binary" token jwks --dev >"$work_dir/jwks.json"
token=$("$binary" token mint --dev)
jwks_out="$work_dir/jwks.out"
"$python_bin" "$repo_dir/Tests/Peers/jwks_server.py" --document "$work_dir/jwks.json" >"$jwks_out" 2>/dev/null &
started_pids+=($!)
upstream_out="$work_dir/upstream.out"
"$python_bin" "$repo_dir/docs/examples/native_upstream.py" --port 0 >"$upstream_out" 2>/dev/null &
started_pids+=($!)
for file in "$jwks_out" "$upstream_out"; do
  tries=0
  until grep -q '^READY' "$file" 2>/dev/null; do
    tries=$((tries + 1)); [ "$tries" -lt 100 ] || die "peer did not start ($file)"; sleep 0.1
  done
done
jwks_port=$(awk '/^READY/ {print $2}' "$jwks_out")
upstream_port=$(awk '/^READY/ {print $2}' "$upstream_out")

env -i PATH=/usr/bin:/bin UPSTREAM_URL="http://127.0.0.1:$upstream_port" \
  LISTEN=127.0.0.1:0 ADMIN_LISTEN=127.0.0.1:0 EVENT_LOOPS="${EVENT_LOOPS:-2}" ACCESS_LOG=false \
  ENTRA_TENANT_ID=d0d0d0d0-0000-4000-8000-00000000de01 ENTRA_AUDIENCE=appnative-dev-ios-app \
  ENTRA_JWKS_URL="http://127.0.0.1:$jwks_port/keys" \
  "$binary" serve >"$work_dir/gateway.out" 2>"$work_dir/gateway.err" &
gateway_pid=$!
started_pids+=("$gateway_pid")
tries=0
until grep -q '^app-native-gateway ready' "$work_dir/gateway.out" 2>/dev/null; do
  kill -0 "$gateway_pid" 2>/dev/null || die "gateway exited: $(cat "$work_dir/gateway.err")"
  tries=$((tries + 1)); [ "$tries" -lt 100 ] || die "gateway not ready"; sleep 0.1
done
gateway_port=$(grep -m1 '^app-native-gateway ready' "$work_dir/gateway.out" | sed -E 's/.* listen=[^ ]*:([0-9]+) .*/\1/')

body='{"device_id":"bench-device-0001","push_token":"00ff00ff00ff","platform":"ios"}'
cat >"$work_dir/post.lua" <<EOF
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
EOF

# Both must answer {"ok":true} before anything is measured.
check() {
  local answer
  answer=$(curl -s -X POST "$@" -H 'Content-Type: application/json' -d "$body")
  answer=${answer// /}
  [ "$answer" = '{"ok":true}' ] || die "$1 answered: $answer"
}
identity=(-H "X-AppNative-User-Id: 11111111-2222-4333-8444-555555555555" -H "X-AppNative-User-Email: dev.user@example.com"
  -H "X-AppNative-Tenant-Id: d0d0d0d0-0000-4000-8000-00000000de01" -H "X-AppNative-Auth-Method: token")
check "http://127.0.0.1:$upstream_port/api/devices" "${identity[@]}"
check "http://127.0.0.1:$gateway_port/api/devices" -H "Authorization: Bearer $token"

run_wrk() {
  local url="$1"
  shift
  wrk -t1 -c"$connections" -d"$duration" -s "$work_dir/post.lua" "$@" "$url" 2>&1
}
rate() { awk '/^Requests\/sec/ {print $2}'; }
errors() { awk '/Non-2xx|Socket errors/ {print}'; }

echo "native routes: POST /api/devices, wrk -t1 -c$connections -d$duration, $rounds rounds (load: $(load_average))"
declare -a direct_rates gateway_rates
for round in $(seq 1 "$rounds"); do
  out=$(run_wrk "http://127.0.0.1:$upstream_port/api/devices" "${identity[@]}")
  direct_rates+=("$(echo "$out" | rate)")
  [ -z "$(echo "$out" | errors)" ] || die "direct run had errors: $(echo "$out" | errors)"
  out=$(run_wrk "http://127.0.0.1:$gateway_port/api/devices" -H "Authorization: Bearer $token")
  gateway_rates+=("$(echo "$out" | rate)")
  [ -z "$(echo "$out" | errors)" ] || die "gateway run had errors: $(echo "$out" | errors)"
  echo "  round $round: direct ${direct_rates[-1]}/s   gateway ${gateway_rates[-1]}/s"
done
best() { printf '%s\n' "$@" | sort -g | tail -1; }
direct=$(best "${direct_rates[@]}")
through=$(best "${gateway_rates[@]}")
printf 'device registrations/s (best of %d): direct %s, through the gateway %s, ratio gateway/direct %.2f\n' \
  "$rounds" "$direct" "$through" "$(echo "$through / $direct" | bc -l)"

# A 25 MB document through the gateway.
head -c 25000000 /dev/urandom >"$work_dir/document.bin"
read -r _ hwm_before < <(rss_kb "$gateway_pid")
start=$(date +%s.%N)
answer=$(curl -s "http://127.0.0.1:$gateway_port/api/documents" -H "Authorization: Bearer $token" \
  -F device_id=bench-device-0001 -F kind=scan -F "file=@$work_dir/document.bin;type=application/pdf")
end=$(date +%s.%N)
read -r _ hwm_after < <(rss_kb "$gateway_pid")
case "$answer" in *'"ok":true'*) ;; *) die "upload answered: $answer" ;; esac
stored=$(curl -s "http://127.0.0.1:$upstream_port/_example/documents" | "$python_bin" -c 'import json,sys; d=json.load(sys.stdin)[-1]; print(d["size"], d["sha256"])')
expected="25000000 $(sha256sum "$work_dir/document.bin" | cut -d' ' -f1)"
[ "$stored" = "$expected" ] || die "the upstream stored $stored, expected $expected"
printf '25 MB document upload through the gateway: %.2f s (upstream stored it intact), gateway VmHWM %d kB before, %d kB after\n' \
  "$(echo "$end - $start" | bc -l)" "$hwm_before" "$hwm_after"
