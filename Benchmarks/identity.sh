#!/usr/bin/env bash
# Identity-path benchmark: what verifying a bearer token or a session cookie costs the gateway,
# against its own anonymous path and against HAProxy's and Apache's JWT verification.
#
# One run, all on loopback, each peer with its own temp config and free ports; every process it
# starts is stopped on exit. Cases, interleaved ROUNDS times (wrk -t1 -c$CONNECTIONS -d$DURATION):
#   gateway-anon     the gateway, PUBLIC_PATHS=/ (no credential checked)
#   gateway-token    the gateway, the same RS256 Entra token on every request (Authorization)
#   gateway-cookie   the gateway, its session cookie alone (Cookie: bms_session=…)
#   gateway-sized    the anonymous gateway with a filler field as long as the token's Authorization
#                    (forwarded upstream): what the bytes alone cost wrk, the gateway and nginx,
#                    with no credential work at all (the ceiling of token / anonymous)
#   haproxy-rs256    HAProxy 2.6 jwt_verify RS256 of the same token (+ alg, aud, iss, exp)
#   haproxy-hs256    HAProxy 2.6 jwt_verify HS256 of a PyJWT cookie (+ alg, aud, exp)
#   apache-openidc   Apache 2.4 + mod_auth_openidc, AuthType oauth20 (OAuth 2.0 resource server)
# all proxying to one nginx upstream (`return 200`, keep-alive). Then the cost of a first
# (uncached) token: FRESH_TOKENS fresh tokens vs a repeated one, one curl each, medians.
#
# Prints requests/s, p50, p99 and CPU time per request of the proxy's own processes
# (utime+stime+cutime+cstime from /proc/<pid>/stat, master and workers), and the ratios.
#
# Needs (Debian): nginx-light, wrk, haproxy, apache2, libapache2-mod-auth-openidc, openssl, curl,
# python3, python3-jwt, procps; a release build of app-native-gateway (GATEWAY_BIN or built here).
# Settings: DURATION (10s), CONNECTIONS (50), ROUNDS (2), FRESH_TOKENS (200), EVENT_LOOPS (2),
# SKIP_APACHE=1, WAIT_FOR_WRK (seconds to wait for a wrk run by someone else, 900).
set -euo pipefail

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "$bench_dir/.." && pwd)"
duration="${DURATION:-10s}"
connections="${CONNECTIONS:-50}"
rounds="${ROUNDS:-2}"
fresh_count="${FRESH_TOKENS:-200}"
event_loops="${EVENT_LOOPS:-2}"
python_bin="${PYTHON:-/usr/bin/python3}"
nginx_bin="${NGINX:-/usr/sbin/nginx}"
haproxy_bin="${HAPROXY:-/usr/sbin/haproxy}"
apache_bin="${APACHE:-/usr/sbin/apache2}"
apache_modules="${APACHE_MODULES:-/usr/lib/apache2/modules}"
tenant="d0d0d0d0-0000-4000-8000-00000000de01"
audience="appnative-dev-ios-app"
cookie_audience="bmsdna-app-native-session"
clock_ticks=$(getconf CLK_TCK)

work_dir="$(mktemp -d "${TMPDIR:-/tmp}/appnative-idbench.XXXXXX")"
chmod 755 "$work_dir" # nginx and Apache workers run as nobody when the script runs as root
started_pids=()

cleanup() {
  local pid tries
  for pid in "${started_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${started_pids[@]}"; do
    tries=0
    while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 50 ]; do sleep 0.1; tries=$((tries + 1)); done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work_dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "error: $*" >&2; exit 1; }
note() { echo "$*" >&2; }

for tool in "$nginx_bin" wrk curl openssl "$python_bin" "$haproxy_bin"; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh)"
done
"$python_bin" -c 'import jwt' 2>/dev/null || die "PyJWT is missing for $python_bin (python3-jwt)"

# The gateway's release binary: GATEWAY_BIN, or built here (incremental, quiet).
if [ -n "${GATEWAY_BIN:-}" ]; then
  gateway_bin="$GATEWAY_BIN"
else
  note "building app-native-gateway (release)…"
  (cd "$repo_dir" && swift build -c release --product app-native-gateway >/dev/null) || die "release build failed"
  gateway_bin="$repo_dir/.build/release/app-native-gateway"
fi
[ -x "$gateway_bin" ] || die "$gateway_bin is not executable"
gateway() { APPNATIVE_REPOSITORY_ROOT="$repo_dir" "$gateway_bin" "$@"; }

# A free loopback TCP port (bound and released at once).
free_port() {
  "$python_bin" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until 127.0.0.1:$1 accepts connections (10 s at most) while process $2 lives.
wait_for_port() {
  local port="$1" pid="$2" name="$3" log="${4:-/dev/null}" tries=0
  until "$python_bin" -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2).close()" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || die "$name exited at start: $(tail -n 5 "$log" 2>/dev/null)"
    tries=$((tries + 1))
    [ "$tries" -lt 100 ] || die "$name does not listen on 127.0.0.1:$port"
    sleep 0.1
  done
}

# Every process of a tree: the root and its descendants (nginx/Apache master and workers).
process_tree() {
  local pid="$1" child
  echo "$pid"
  for child in $(pgrep -P "$pid" 2>/dev/null || true); do process_tree "$child"; done
}

# CPU clock ticks of a tree: utime+stime of each process (all its threads) plus cutime+cstime
# (children it has reaped), so a worker that exits during a run is still counted.
cpu_ticks() {
  local total=0 p ticks
  for p in $(process_tree "$1"); do
    ticks=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk '{print $12 + $13 + $14 + $15}') || ticks=0
    total=$((total + ${ticks:-0}))
  done
  echo "$total"
}

# ---------------------------------------------------------------------------------------------
# Keys, tokens, cookies

secret=$(openssl rand -hex 32) # 64 characters: a literal in HAProxy's config needs no quoting
openssl pkey -in "$repo_dir/keys/dev/entra-dev-rsa.pem" -pubout -out "$work_dir/entra-dev-rsa.pub.pem" 2>/dev/null \
  || die "cannot derive the public key from keys/dev/entra-dev-rsa.pem"
gateway token jwks --dev >"$work_dir/jwks.json" || die "token jwks --dev failed"
token=$(gateway token mint --dev --lifetime 7200) || die "token mint --dev failed"
chmod 644 "$work_dir"/*.json "$work_dir"/*.pem

# The token's claims, for the peers' checks and the PyJWT cookie.
claim() { "$python_bin" -c 'import jwt, sys; v = jwt.decode(sys.argv[1], options={"verify_signature": False}).get(sys.argv[2], ""); print(v)' "$token" "$1"; }
issuer=$(claim iss)
haproxy_cookie=$("$python_bin" - "$token" "$secret" "$cookie_audience" <<'EOF'
import jwt, sys, time
claims = jwt.decode(sys.argv[1], options={"verify_signature": False})
now = int(time.time())
cookie = {"aud": sys.argv[3], "sub": claims["oid"], "email": claims.get("email") or claims.get("preferred_username"),
          "tid": claims["tid"], "iat": now, "exp": now + 28800}
for name in ("name", "upn"):
    if claims.get(name): cookie[name] = claims[name]
print(jwt.encode(cookie, sys.argv[2], algorithm="HS256"))
EOF
)

# ---------------------------------------------------------------------------------------------
# Peers

# The upstream (`return 200`, one worker, keep-alive) and, on a second port, the JWKS.
upstream_port=$(free_port)
jwks_port=$(free_port)
jwks_tls_port=$(free_port)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
  -keyout "$work_dir/jwks-tls.key" -out "$work_dir/jwks-tls.crt" 2>/dev/null || die "cannot make the JWKS TLS certificate"
mkdir -p "$work_dir/nginx"
cat >"$work_dir/nginx/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes ${UPSTREAM_WORKERS:-1};
pid $work_dir/nginx/nginx.pid;
error_log $work_dir/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_timeout 75s;
    keepalive_requests 1000000;
    # Heads behind an identity proxy carry a token or identity fields and a signed assertion
    # (1-3 KB): sized for them, as a deployment would be (nginx's 1 KB default sends larger heads
    # to its large-buffer path, ~6 us more per request here). The same for every case.
    client_header_buffer_size 4k;
    client_body_temp_path $work_dir/nginx/client_body;
    proxy_temp_path $work_dir/nginx/proxy;
    fastcgi_temp_path $work_dir/nginx/fastcgi;
    uwsgi_temp_path $work_dir/nginx/uwsgi;
    scgi_temp_path $work_dir/nginx/scgi;
    server {
        listen 127.0.0.1:$upstream_port;
        location / { default_type text/plain; return 200 "hello from the upstream\n"; }
    }
    server {
        listen 127.0.0.1:$jwks_port;
        location = /keys { default_type application/json; alias $work_dir/jwks.json; }
    }
    server {
        # mod_auth_openidc 2.4 accepts only an https JWKS URI.
        listen 127.0.0.1:$jwks_tls_port ssl;
        ssl_certificate $work_dir/jwks-tls.crt;
        ssl_certificate_key $work_dir/jwks-tls.key;
        location = /keys { default_type application/json; alias $work_dir/jwks.json; }
    }
}
EOF
"$nginx_bin" -q -t -p "$work_dir/nginx" -c "$work_dir/nginx/nginx.conf" -e "$work_dir/nginx/error.log" \
  || die "nginx: bad config"
"$nginx_bin" -p "$work_dir/nginx" -c "$work_dir/nginx/nginx.conf" -e "$work_dir/nginx/error.log" &
nginx_pid=$!
started_pids+=("$nginx_pid")
wait_for_port "$upstream_port" "$nginx_pid" nginx "$work_dir/nginx/error.log"
wait_for_port "$jwks_port" "$nginx_pid" nginx
wait_for_port "$jwks_tls_port" "$nginx_pid" nginx

# start_gateway NAME [K=V…]: the gateway on ports it picks itself; sets port_NAME and pid_NAME.
start_gateway() {
  local name="$1"
  shift
  local out="$work_dir/gateway-$name.out"
  env -i PATH=/usr/bin:/bin \
    UPSTREAM_URL="http://127.0.0.1:$upstream_port" LISTEN=127.0.0.1:0 ADMIN_LISTEN=127.0.0.1:0 \
    EVENT_LOOPS="$event_loops" ACCESS_LOG=false \
    ENTRA_TENANT_ID="$tenant" ENTRA_AUDIENCE="$audience" ENTRA_JWKS_URL="http://127.0.0.1:$jwks_port/keys" \
    SESSION_SECRET="$secret" SESSION_SECURE=false \
    ASSERTION_KEYS="$(cat "$repo_dir/keys/dev/assertion-dev-p256.pem")" \
    "$@" "$gateway_bin" serve >"$out" 2>"$work_dir/gateway-$name.err" &
  local pid=$!
  started_pids+=("$pid")
  local tries=0
  until grep -q '^app-native-gateway ready' "$out" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || die "gateway $name exited: $(cat "$work_dir/gateway-$name.err")"
    tries=$((tries + 1))
    [ "$tries" -lt 100 ] || die "gateway $name not ready after 10 s"
    sleep 0.1
  done
  local port
  port=$(grep -m1 '^app-native-gateway ready' "$out" | sed -E 's/.* listen=[^ ]*:([0-9]+) .*/\1/')
  printf -v "port_$name" '%s' "$port"
  printf -v "pid_$name" '%s' "$pid"
}
start_gateway anon PUBLIC_PATHS=/
start_gateway auth

# The gateway's own session cookie, from the token.
gateway_cookie=$(curl -s -o /dev/null -D - -X POST "http://127.0.0.1:$port_auth/.auth/session" \
  -H "Authorization: Bearer $token" | tr -d '\r' | sed -nE 's/^[Ss]et-[Cc]ookie: bms_session=([^;]*).*/\1/p')
[ -n "$gateway_cookie" ] || die "POST /.auth/session gave no cookie"

# HAProxy: one process, as many threads as the gateway has loops, two frontends.
haproxy_rs256_port=$(free_port)
haproxy_hs256_port=$(free_port)
cat >"$work_dir/haproxy.cfg" <<EOF
global
    nbthread $event_loops
    maxconn 4096
defaults
    mode http
    timeout connect 5s
    timeout client 75s
    timeout server 60s
    timeout http-keep-alive 75s
    option forwardfor
backend upstream
    http-reuse always
    server upstream 127.0.0.1:$upstream_port
frontend rs256
    bind 127.0.0.1:$haproxy_rs256_port
    http-request set-var(txn.bearer) http_auth_bearer
    http-request deny unless { var(txn.bearer),jwt_header_query('\$.alg') -m str RS256 }
    http-request deny unless { var(txn.bearer),jwt_verify("RS256","$work_dir/entra-dev-rsa.pub.pem") -m int 1 }
    http-request deny unless { var(txn.bearer),jwt_payload_query('\$.aud') -m str $audience }
    http-request deny unless { var(txn.bearer),jwt_payload_query('\$.iss') -m str $issuer }
    http-request set-var(txn.exp) var(txn.bearer),jwt_payload_query('\$.exp','int')
    http-request set-var(txn.now) date
    http-request deny unless { var(txn.exp),sub(txn.now) -m int gt 0 }
    http-request set-header X-User-Id %[var(txn.bearer),jwt_payload_query('\$.oid')]
    http-request del-header Authorization
    default_backend upstream
frontend hs256
    bind 127.0.0.1:$haproxy_hs256_port
    http-request set-var(txn.session) req.cook(bms_session)
    http-request deny unless { var(txn.session),jwt_header_query('\$.alg') -m str HS256 }
    http-request deny unless { var(txn.session),jwt_verify("HS256","$secret") -m int 1 }
    http-request deny unless { var(txn.session),jwt_payload_query('\$.aud') -m str $cookie_audience }
    http-request set-var(txn.exp) var(txn.session),jwt_payload_query('\$.exp','int')
    http-request set-var(txn.now) date
    http-request deny unless { var(txn.exp),sub(txn.now) -m int gt 0 }
    http-request set-header X-User-Id %[var(txn.session),jwt_payload_query('\$.sub')]
    default_backend upstream
EOF
"$haproxy_bin" -c -q -f "$work_dir/haproxy.cfg" || die "haproxy: bad config"
"$haproxy_bin" -db -f "$work_dir/haproxy.cfg" >"$work_dir/haproxy.log" 2>&1 &
haproxy_pid=$!
started_pids+=("$haproxy_pid")
wait_for_port "$haproxy_rs256_port" "$haproxy_pid" haproxy "$work_dir/haproxy.log"

# Apache 2.4 + mod_auth_openidc as an OAuth 2.0 resource server (mpm_event, reverse proxy).
apache_skip=""
if [ -n "${SKIP_APACHE:-}" ]; then
  apache_skip="SKIP_APACHE is set"
elif ! [ -x "$apache_bin" ] || ! [ -f "$apache_modules/mod_auth_openidc.so" ]; then
  apache_skip="apache2 or libapache2-mod-auth-openidc is not installed"
fi
if [ -z "$apache_skip" ]; then
  apache_port=$(free_port)
  mkdir -p "$work_dir/apache"
  apache_user=""
  if [ "$(id -u)" -eq 0 ]; then apache_user=$'User nobody\nGroup nogroup'; fi
  cat >"$work_dir/apache/httpd.conf" <<EOF
ServerRoot $work_dir/apache
ServerName 127.0.0.1
Listen 127.0.0.1:$apache_port
PidFile $work_dir/apache/httpd.pid
DefaultRuntimeDir $work_dir/apache
ErrorLog $work_dir/apache/error.log
LogLevel warn
$apache_user
LoadModule mpm_event_module $apache_modules/mod_mpm_event.so
LoadModule authn_core_module $apache_modules/mod_authn_core.so
LoadModule authz_core_module $apache_modules/mod_authz_core.so
LoadModule authz_user_module $apache_modules/mod_authz_user.so
LoadModule proxy_module $apache_modules/mod_proxy.so
LoadModule proxy_http_module $apache_modules/mod_proxy_http.so
LoadModule auth_openidc_module $apache_modules/mod_auth_openidc.so
StartServers 2
ServerLimit 4
ThreadsPerChild 64
MaxRequestWorkers 256
MinSpareThreads 64
MaxSpareThreads 256
MaxConnectionsPerChild 0
KeepAlive On
MaxKeepAliveRequests 0
KeepAliveTimeout 75
OIDCCryptoPassphrase $(openssl rand -hex 16)
OIDCOAuthVerifyJwksUri https://127.0.0.1:$jwks_tls_port/keys
OIDCOAuthSSLValidateServer Off
OIDCOAuthRemoteUserClaim oid
<Location />
    AuthType oauth20
    Require valid-user
</Location>
ProxyPass / http://127.0.0.1:$upstream_port/
EOF
  if ! "$apache_bin" -t -f "$work_dir/apache/httpd.conf" >"$work_dir/apache/check.log" 2>&1; then
    apache_skip="apache2 -t: $(tr '\n' ' ' <"$work_dir/apache/check.log")"
  else
    "$apache_bin" -DFOREGROUND -f "$work_dir/apache/httpd.conf" >"$work_dir/apache/out.log" 2>&1 &
    apache_pid=$!
    started_pids+=("$apache_pid")
    wait_for_port "$apache_port" "$apache_pid" apache2 "$work_dir/apache/error.log"
  fi
fi

# ---------------------------------------------------------------------------------------------
# Checks: each case answers 200 with the upstream's body, and refuses a request without its
# credential (so the figures below measure verification, not a fast 401/403).

cases=(gateway-anon gateway-sized gateway-token gateway-cookie haproxy-rs256 haproxy-hs256 apache-openidc)
declare -A case_port case_header case_pid
case_port[gateway-anon]=$port_anon;          case_pid[gateway-anon]=$pid_anon;   case_header[gateway-anon]=""
# "X-Padding: " and "Authorization: " differ by 4 characters: the filler makes up for them.
padding=$(printf 'p%.0s' $(seq 1 $(( ${#token} + 7 + 4 ))))
case_port[gateway-sized]=$port_anon;         case_pid[gateway-sized]=$pid_anon;  case_header[gateway-sized]="X-Padding: $padding"
case_port[gateway-token]=$port_auth;         case_pid[gateway-token]=$pid_auth;  case_header[gateway-token]="Authorization: Bearer $token"
case_port[gateway-cookie]=$port_auth;        case_pid[gateway-cookie]=$pid_auth; case_header[gateway-cookie]="Cookie: bms_session=$gateway_cookie"
case_port[haproxy-rs256]=$haproxy_rs256_port; case_pid[haproxy-rs256]=$haproxy_pid; case_header[haproxy-rs256]="Authorization: Bearer $token"
case_port[haproxy-hs256]=$haproxy_hs256_port; case_pid[haproxy-hs256]=$haproxy_pid; case_header[haproxy-hs256]="Cookie: bms_session=$haproxy_cookie"
if [ -z "$apache_skip" ]; then
  case_port[apache-openidc]=$apache_port; case_pid[apache-openidc]=$apache_pid
  case_header[apache-openidc]="Authorization: Bearer $token"
fi

# The same credentials with another credential's signature (header and claims kept).
other_token=$(gateway token mint --dev --oid 00000000-0000-4000-8000-0000000000bb --lifetime 7199)
other_cookie=$(curl -s -o /dev/null -D - -X POST "http://127.0.0.1:$port_auth/.auth/session" \
  -H "Authorization: Bearer $other_token" | tr -d '\r' | sed -nE 's/^[Ss]et-[Cc]ookie: bms_session=([^;]*).*/\1/p')
bad_token="${token%.*}.${other_token##*.}"
declare -A case_bad_header
case_bad_header[gateway-token]="Authorization: Bearer $bad_token"
case_bad_header[haproxy-rs256]="Authorization: Bearer $bad_token"
case_bad_header[apache-openidc]="Authorization: Bearer $bad_token"
case_bad_header[gateway-cookie]="Cookie: bms_session=${gateway_cookie%.*}.${other_cookie##*.}"
case_bad_header[haproxy-hs256]="Cookie: bms_session=${haproxy_cookie%.*}.${other_cookie##*.}"

request() { # PORT [HEADER]: "status body"
  local args=(-s -o "$work_dir/body" -w '%{http_code}' "http://127.0.0.1:$1/")
  [ -n "${2:-}" ] && args+=(-H "$2")
  local status
  status=$(curl "${args[@]}") || status=000
  echo "$status $(tr -d '\n' <"$work_dir/body" 2>/dev/null)"
}

for name in "${cases[@]}"; do
  if [ "$name" = apache-openidc ] && [ -n "$apache_skip" ]; then continue; fi
  port=${case_port[$name]}
  answer=$(request "$port" "${case_header[$name]}")
  if [ "$answer" != "200 hello from the upstream" ]; then
    if [ "$name" = apache-openidc ]; then
      apache_skip="it answered '$answer' to a valid token ($(tail -n 3 "$work_dir/apache/error.log" | tr '\n' ' '))"
      continue
    fi
    die "$name answered '$answer' (expected 200 from the upstream)"
  fi
  if [ "$name" != gateway-anon ] && [ "$name" != gateway-sized ]; then
    status=$(request "$port" "" | cut -d' ' -f1)
    case "$status" in 401 | 403) ;; *) die "$name answered $status without a credential" ;; esac
    status=$(request "$port" "${case_bad_header[$name]}" | cut -d' ' -f1)
    case "$status" in 401 | 403) ;; *) die "$name answered $status to a credential with a bad signature" ;; esac
  fi
done
if [ -n "$apache_skip" ]; then
  cases=(gateway-anon gateway-sized gateway-token gateway-cookie haproxy-rs256 haproxy-hs256)
fi

# ---------------------------------------------------------------------------------------------
# Load

# Another benchmark's wrk would share these two cores: wait for it to finish.
wait_for_foreign_wrk() {
  local waited=0 limit="${WAIT_FOR_WRK:-900}"
  while pgrep -x wrk >/dev/null; do
    [ "$waited" -eq 0 ] && note "waiting for another wrk to finish…"
    [ "$waited" -lt "$limit" ] || { note "still a wrk running after ${limit}s; measuring anyway"; foreign_wrk=yes; return; }
    sleep 1
    waited=$((waited + 1))
  done
}
foreign_wrk=no

# Latency text of wrk ("850.12us", "1.20ms", "1.02s") in milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN {
    n = v + 0
    if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; else if (v ~ /m$/) n *= 60000
    printf "%.3f", n }'
}

package_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "?"; }
echo "identity benchmark: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "gateway $("$gateway_bin" version 2>/dev/null | head -n 1), haproxy $(package_version haproxy)," \
  "apache2 $(package_version apache2), mod_auth_openidc $(package_version libapache2-mod-auth-openidc)," \
  "nginx $(package_version nginx-light)"
echo "token ${#token} bytes (RS256, kid $("$python_bin" -c 'import jwt, sys; print(jwt.get_unverified_header(sys.argv[1])["kid"])' "$token")), gateway cookie ${#gateway_cookie} bytes, PyJWT cookie ${#haproxy_cookie} bytes"
echo

declare -A sum_rps sum_p50 sum_p99 sum_requests sum_ticks runs_of bad_runs
printf '%-16s %5s %11s %9s %9s %11s %s\n' case round "requests/s" "p50 ms" "p99 ms" "CPU us/req" "(non-2xx, socket errors)"
for ((round = 1; round <= rounds; round++)); do
  for name in "${cases[@]}"; do
    port=${case_port[$name]}
    header=${case_header[$name]}
    args=(-t1 "-c$connections" "-d$duration" --latency)
    [ -n "$header" ] && args+=(-H "$header")
    wait_for_foreign_wrk
    before=$(cpu_ticks "${case_pid[$name]}")
    out=$(wrk "${args[@]}" "http://127.0.0.1:$port/")
    after=$(cpu_ticks "${case_pid[$name]}")
    rps=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
    requests=$(echo "$out" | awk '/requests in/ {print $1}')
    p50=$(to_ms "$(echo "$out" | awk '$1 == "50%" {print $2}')")
    p99=$(to_ms "$(echo "$out" | awk '$1 == "99%" {print $2}')")
    non2xx=$(echo "$out" | awk '/Non-2xx or 3xx responses:/ {print $NF}')
    errors=$(echo "$out" | awk '/Socket errors:/ {s = 0; for (i = 3; i <= NF; i += 2) s += $(i + 1); print s}')
    ticks=$((after - before))
    cpu_us=$(awk -v t="$ticks" -v hz="$clock_ticks" -v n="$requests" 'BEGIN {printf "%.1f", t / hz * 1e6 / n}')
    printf '%-16s %5s %11.0f %9.3f %9.3f %11s (%s, %s)\n' "$name" "$round" "$rps" "$p50" "$p99" "$cpu_us" "${non2xx:-0}" "${errors:-0}"
    sum_rps[$name]=$(awk -v a="${sum_rps[$name]:-0}" -v b="$rps" 'BEGIN {print a + b}')
    sum_p50[$name]=$(awk -v a="${sum_p50[$name]:-0}" -v b="$p50" 'BEGIN {print a + b}')
    sum_p99[$name]=$(awk -v a="${sum_p99[$name]:-0}" -v b="$p99" 'BEGIN {print a + b}')
    sum_requests[$name]=$(( ${sum_requests[$name]:-0} + requests ))
    sum_ticks[$name]=$(( ${sum_ticks[$name]:-0} + ticks ))
    runs_of[$name]=$(( ${runs_of[$name]:-0} + 1 ))
    if [ "${non2xx:-0}" != 0 ] || [ "${errors:-0}" != 0 ]; then bad_runs[$name]=yes; fi
  done
done

echo
echo "mean of $rounds rounds (wrk -t1 -c$connections -d$duration; gateway and HAProxy: $event_loops threads; upstream: nginx, ${UPSTREAM_WORKERS:-1} worker)"
printf '%-16s %11s %9s %9s %11s\n' case "requests/s" "p50 ms" "p99 ms" "CPU us/req"
declare -A mean_rps mean_cpu
for name in "${cases[@]}"; do
  n=${runs_of[$name]}
  mean_rps[$name]=$(awk -v s="${sum_rps[$name]}" -v n="$n" 'BEGIN {printf "%.0f", s / n}')
  mean_cpu[$name]=$(awk -v t="${sum_ticks[$name]}" -v hz="$clock_ticks" -v r="${sum_requests[$name]}" 'BEGIN {printf "%.1f", t / hz * 1e6 / r}')
  printf '%-16s %11s %9.3f %9.3f %11s%s\n' "$name" "${mean_rps[$name]}" \
    "$(awk -v s="${sum_p50[$name]}" -v n="$n" 'BEGIN {print s / n}')" \
    "$(awk -v s="${sum_p99[$name]}" -v n="$n" 'BEGIN {print s / n}')" "${mean_cpu[$name]}" \
    "$([ -n "${bad_runs[$name]:-}" ] && echo "  INVALID: non-2xx responses or socket errors" || true)"
done
if [ -n "$apache_skip" ]; then
  echo "apache-openidc   skipped: $apache_skip"
fi

echo
ratio() { # NAME A B GOAL: requests/s ratio A/B against its goal, and both CPU times per request
  local rps verdict
  rps=$(awk -v a="${mean_rps[$2]}" -v b="${mean_rps[$3]}" 'BEGIN {printf "%.2f", a / b}')
  verdict=$(awk -v r="$rps" -v g="$4" 'BEGIN {print (r >= g) ? "met" : "MISSED"}')
  printf '%-34s %6s  (goal >= %-4s %-6s)  CPU/request %s us vs %s us\n' "$1" "$rps" "$4:" "$verdict" "${mean_cpu[$2]}" "${mean_cpu[$3]}"
}
echo "ratios of requests/s"
ratio "gateway token / anonymous" gateway-token gateway-anon 0.95
ratio "gateway cookie / anonymous" gateway-cookie gateway-anon 0.95
printf '%-34s %6s  (the same bytes with no credential work: the ceiling of the two ratios above)\n' \
  "token-sized field / anonymous" "$(awk -v a="${mean_rps[gateway-sized]}" -v b="${mean_rps[gateway-anon]}" 'BEGIN {printf "%.2f", a / b}')"
ratio "gateway token / HAProxy RS256" gateway-token haproxy-rs256 2
ratio "gateway cookie / HAProxy HS256" gateway-cookie haproxy-hs256 1.5
if [ -z "$apache_skip" ]; then
  printf '%-34s %6s\n' "gateway token / Apache openidc" \
    "$(awk -v a="${mean_rps[gateway-token]}" -v b="${mean_rps[apache-openidc]}" 'BEGIN {printf "%.2f", a / b}')"
fi

# ---------------------------------------------------------------------------------------------
# First (uncached) token: a fresh token per request vs the same token again, one connection each
# (curl), alternating so both see the same conditions. Fresh tokens differ by their lifetime
# (same user), so the difference is the RS256 verification and the claim checks.

echo
note "minting $fresh_count fresh tokens…"
fresh_tokens=()
for ((i = 1; i <= fresh_count; i++)); do
  fresh_tokens+=("$(gateway token mint --dev --lifetime $((7200 + i)))")
done
[ "$(printf '%s\n' "${fresh_tokens[@]}" | sort -u | wc -l)" -eq "$fresh_count" ] || die "minted tokens are not all distinct"
wait_for_foreign_wrk
: >"$work_dir/fresh.txt"
: >"$work_dir/repeated.txt"
for t in "${fresh_tokens[@]}"; do
  for kind in fresh repeated; do
    bearer=$token
    [ "$kind" = fresh ] && bearer=$t
    result=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -H "Authorization: Bearer $bearer" "http://127.0.0.1:$port_auth/")
    [ "${result%% *}" = 200 ] || die "$kind token answered ${result%% *}"
    echo "${result#* }" >>"$work_dir/$kind.txt"
  done
done
median_us() { sort -g "$1" | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f", m * 1e6}'; }
fresh_us=$(median_us "$work_dir/fresh.txt")
repeated_us=$(median_us "$work_dir/repeated.txt")
printf 'first (uncached) token, median of %d (curl time_total, new connection each):\n' "$fresh_count"
printf '  %-28s %8s us\n' "fresh token" "$fresh_us" "repeated token" "$repeated_us" "difference (first-token cost)" "$((fresh_us - repeated_us))"

echo
[ "$foreign_wrk" = no ] || echo "note: another wrk was running during part of this run"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
