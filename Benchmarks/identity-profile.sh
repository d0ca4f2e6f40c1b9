#!/usr/bin/env bash
# Instructions per request on the gateway's request paths (reverse proxy and identity):
# anonymous (PUBLIC_PATHS=/), repeated Bearer token, session cookie alone,
# `token-uncached`: the repeated token with TOKEN_CACHE_SIZE=0 (every request splits, decodes and
# verifies the token: the RSA verify and everything around it), and
# `sized`: anonymous with a filler field as long as the token's Authorization (what the bytes
# alone cost, as in identity.sh).
# For each path: an nginx upstream and JWKS server, the gateway (release build, EVENT_LOOPS=1,
# ACCESS_LOG=false) under `valgrind --tool=callgrind`, WARMUP requests (not counted: the counters
# are zeroed with callgrind_control afterwards), then REQUESTS keep-alive GETs on one connection
# (Python http.client), then a dump. Prints user-space instructions per request; kernel time is
# not in it. Deterministic enough to compare two builds on a busy machine (A/B: run it with
# GATEWAY_BIN set to each build).
#
# Environment: REQUESTS (500), WARMUP (300), PATHS ("anon token cookie"; add "sized", "token-uncached"), KEEP (a directory to
# keep the callgrind outputs in), GATEWAY_BIN (else built here), SECRETS_FROM_FILES=1 (the session
# secret and the assertion key from SESSION_SECRET_FILE and ASSERTION_KEYS_FILE: what the per-loop
# check for a SIGHUP rotation costs).
# Needs: valgrind binutils nginx-light python3 openssl curl.
set -euo pipefail
source "$(dirname "$0")/common.sh"

requests="${REQUESTS:-500}"
warmup="${WARMUP:-300}"
paths="${PATHS:-anon token cookie}"

binary=$(gateway_binary)
# Valgrind 3.19 cannot read the toolchain's DWARF 5: profile a copy without debug sections.
real_binary="$work_dir/app-native-gateway"
objcopy --strip-debug "$binary" "$real_binary"
export APPNATIVE_REPOSITORY_ROOT="$repo_dir"
"$real_binary" token jwks --dev >"$work_dir/jwks.json"
chmod 644 "$work_dir/jwks.json"
token=$("$real_binary" token mint --dev --lifetime 7200)

start_upstream
jwks_port=$(free_port)
mkdir -p "$work_dir/jwks"
cat >"$work_dir/jwks/nginx.conf" <<EOF
daemon off; master_process off; worker_processes 1; pid $work_dir/jwks/nginx.pid;
error_log $work_dir/jwks/error.log warn;
events { worker_connections 64; }
http { $(nginx_common "$work_dir/jwks")
  server { listen 127.0.0.1:$jwks_port; location = /keys { default_type application/json; alias $work_dir/jwks.json; } } }
EOF
"$nginx_bin" -p "$work_dir/jwks" -c "$work_dir/jwks/nginx.conf" -e "$work_dir/jwks/error.log" &
started_pids+=($!)
wait_for_port "$jwks_port"

cat >"$work_dir/drive.py" <<'EOF'
import http.client, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
headers = {}
if len(sys.argv) > 3 and sys.argv[3]:
    name, value = sys.argv[3].split(": ", 1)
    headers[name] = value
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
for _ in range(n):
    connection.request("GET", "/", headers=headers)
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        sys.exit(f"status {response.status}")
EOF

secret=$(openssl rand -hex 32)
secrets=(SESSION_SECRET="$secret" ASSERTION_KEYS="$(cat "$repo_dir/keys/dev/assertion-dev-p256.pem")")
if [ "${SECRETS_FROM_FILES:-0}" = 1 ]; then
  printf '%s\n' "$secret" >"$work_dir/session-secret"
  secrets=(SESSION_SECRET_FILE="$work_dir/session-secret" ASSERTION_KEYS_FILE="$repo_dir/keys/dev/assertion-dev-p256.pem")
fi
for path in $paths; do
  out="$work_dir/callgrind-$path.out"
  public=()
  case "$path" in anon | sized) public=(PUBLIC_PATHS=/) ;; token-uncached) public=(TOKEN_CACHE_SIZE=0) ;; esac
  port=$(free_port)
  admin_port=$(free_port)
  env -i PATH=/usr/bin:/bin UPSTREAM_URL="http://127.0.0.1:$upstream_port" LISTEN="127.0.0.1:$port" \
    ADMIN_LISTEN="127.0.0.1:$admin_port" EVENT_LOOPS=1 ACCESS_LOG=false "${public[@]}" \
    ENTRA_TENANT_ID=d0d0d0d0-0000-4000-8000-00000000de01 ENTRA_AUDIENCE=appnative-dev-ios-app \
    ENTRA_JWKS_URL="http://127.0.0.1:$jwks_port/keys" SESSION_SECURE=false "${secrets[@]}" \
    valgrind --tool=callgrind --callgrind-out-file="$out" "$real_binary" serve \
    >"$work_dir/gateway-$path.log" 2>&1 &
  gateway_pid=$!
  started_pids+=("$gateway_pid")
  wait_for_port "$port"
  # Ready once the key set is loaded: under valgrind that takes seconds, and a token sent
  # before it is answered 503 (120 s at most, polled).
  tries=0
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$admin_port/readyz")" = 200 ]; do
    tries=$((tries + 1))
    [ "$tries" -lt 600 ] || { tail -20 "$work_dir/gateway-$path.log" >&2; die "the gateway on $port never became ready"; }
    sleep 0.2
  done
  case "$path" in
    anon) header="" ;;
    token | token-uncached) header="Authorization: Bearer $token" ;;
    sized) header="X-Filler: $(printf "Bearer %s" "$token" | tr -c '' 'f')" ;;
    cookie)
      cookie=$(curl -s -o /dev/null -D - -X POST "http://127.0.0.1:$port/.auth/session" -H "Authorization: Bearer $token" \
        | tr -d '\r' | sed -nE 's/^[Ss]et-[Cc]ookie: bms_session=([^;]*).*/\1/p')
      header="Cookie: bms_session=$cookie" ;;
  esac
  "$python_bin" "$work_dir/drive.py" "$port" "$warmup" "$header" || { tail -20 "$work_dir/gateway-$path.log" >&2; exit 1; }
  callgrind_control --zero "$gateway_pid" >/dev/null 2>&1
  "$python_bin" "$work_dir/drive.py" "$port" "$requests" "$header"
  callgrind_control --dump "$gateway_pid" >/dev/null 2>&1
  kill -TERM "$gateway_pid"
  wait "$gateway_pid" 2>/dev/null || true
  total=$(callgrind_annotate "$out.1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  printf '%-14s %10d instructions per request (%d requests)\n' "$path" "$((total / requests))" "$requests"
  [ -n "${KEEP:-}" ] && cp "$out.1" "$KEEP/callgrind-$path.out"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
