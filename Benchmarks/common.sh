# Shared by proxy.sh, idle-connections.sh and memory-flat.sh (sourced, not run).
# Starts the peers of the proxy benchmarks on loopback, each with its own temp config and free
# ports, and stops exactly the processes it started when the script exits.
#
# Needs (Debian): nginx-light, wrk, python3, procps; a release build of app-native-gateway.

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(cd "$bench_dir/.." && pwd)"
nginx_bin="${NGINX:-/usr/sbin/nginx}"
python_bin="${PYTHON:-/usr/bin/python3}"
work_dir="$(mktemp -d "${TMPDIR:-/tmp}/appnative-bench.XXXXXX")"
chmod 755 "$work_dir" # nginx workers run as nobody when the script runs as root
started_pids=()

cleanup() {
  local pid
  for pid in "${started_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${started_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work_dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "error: $*" >&2; exit 1; }

# The gateway's release binary: GATEWAY_BIN, or built here (incremental, quiet).
gateway_binary() {
  if [ -n "${GATEWAY_BIN:-}" ]; then
    [ -x "$GATEWAY_BIN" ] || die "GATEWAY_BIN=$GATEWAY_BIN is not executable"
    echo "$GATEWAY_BIN"
    return
  fi
  echo "building app-native-gateway (release)…" >&2
  (cd "$repo_dir" && swift build -c release --product app-native-gateway >/dev/null) || die "release build failed"
  echo "$repo_dir/.build/release/app-native-gateway"
}

# A free loopback TCP port (bound and released at once: another process could take it before
# nginx binds it, which would fail the start loudly, never silently measure something else).
free_port() {
  "$python_bin" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until 127.0.0.1:$1 accepts connections (5 s at most).
wait_for_port() {
  local port="$1" tries=0
  until "$python_bin" -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2).close()" 2>/dev/null; do
    tries=$((tries + 1))
    [ "$tries" -lt 50 ] || die "nothing listens on 127.0.0.1:$port"
    sleep 0.1
  done
}

# Common nginx settings: no access log, long keep-alive, temp paths in the instance's directory.
nginx_common() {
  local dir="$1"
  cat <<EOF
    access_log off;
    keepalive_timeout 75s;
    keepalive_requests 1000000;
    client_body_temp_path $dir/client_body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
EOF
}

# start_nginx NAME CONFIG-BODY: runs a foreground nginx master with its own prefix; sets
# nginx_pid (the master). Its workers are found with `pgrep -P`.
start_nginx() {
  local name="$1" http_body="$2" workers="$3" port="$4"
  local dir="$work_dir/$name"
  mkdir -p "$dir"
  cat >"$dir/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes $workers;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
$(nginx_common "$dir")
$http_body
}
EOF
  "$nginx_bin" -q -t -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" || die "nginx $name: bad config"
  "$nginx_bin" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" &
  nginx_pid=$!
  started_pids+=("$nginx_pid")
  wait_for_port "$port"
}

# The upstream: `return 200` of a small body, keep-alive on. Sets upstream_port, upstream_pid.
start_upstream() {
  upstream_port=$(free_port)
  start_nginx upstream "
    server {
        listen 127.0.0.1:$upstream_port reuseport;
        location / { default_type text/plain; return 200 \"hello from the upstream\n\"; }
    }" "${UPSTREAM_WORKERS:-1}" "$upstream_port"
  upstream_pid=$nginx_pid
}

# The location block of the nginx proxies the benchmarks compare with: HTTP/1.1 to the upstream
# pool `backend`, with the forwarding fields the gateway adds.
nginx_proxy_location() {
  cat <<'NGINX'
        location / {
            proxy_pass http://backend;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-Host $http_host;
            proxy_set_header Forwarded 'for=$remote_addr;proto=$scheme;host="$http_host"';
            proxy_set_header X-Request-Id $request_id;
        }
NGINX
}

# nginx as a reverse proxy to the upstream, adding the same headers the gateway adds (Host kept,
# X-Forwarded-For/-Proto/-Host, Forwarded, a random X-Request-Id), so both do the same work.
# Sets nginx_proxy_port, nginx_proxy_pid.
start_nginx_proxy() {
  nginx_proxy_port=$(free_port)
  start_nginx proxy "
    upstream backend {
        server 127.0.0.1:$upstream_port;
        keepalive 64;
        keepalive_requests 1000000;
        keepalive_timeout 60s;
    }
    server {
        listen 127.0.0.1:$nginx_proxy_port reuseport;
$(nginx_proxy_location)
    }" "${PROXY_WORKERS:-2}" "$nginx_proxy_port"
  nginx_proxy_pid=$nginx_pid
}

# The gateway in front of the upstream, on ports it picks itself (port 0). Sets gateway_pid,
# gateway_port, gateway_admin_port. Extra environment: GATEWAY_ENV (space-separated K=V).
# Every path is public (PUBLIC_PATHS=/), so what is measured is the HTTP engine and the proxy,
# as with nginx; the Entra settings are there because `serve` requires them (the key set URL
# points at the upstream, which has none: the gateway logs a warning and never needs a key).
gateways_started=0
start_gateway() {
  gateways_started=$((gateways_started + 1))
  local binary="$1" out="$work_dir/gateway-$gateways_started.out" err="$work_dir/gateway-$gateways_started.err"
  shift # the rest: NAME=VALUE settings of this gateway (values may hold spaces and newlines)
  # shellcheck disable=SC2086
  env -i PATH=/usr/bin:/bin UPSTREAM_URL="http://127.0.0.1:$upstream_port" \
    LISTEN=127.0.0.1:0 ADMIN_LISTEN=127.0.0.1:0 EVENT_LOOPS="${EVENT_LOOPS:-2}" ACCESS_LOG=false \
    PUBLIC_PATHS=/ ENTRA_TENANT_ID=00000000-0000-4000-8000-00000000b0b0 \
    ENTRA_AUDIENCE=00000000-0000-4000-8000-00000000b0b1 ENTRA_JWKS_URL="http://127.0.0.1:$upstream_port/jwks" \
    ${GATEWAY_ENV:-} "$@" "$binary" serve >"$out" 2>"$err" &
  gateway_pid=$!
  started_pids+=("$gateway_pid")
  local tries=0
  until grep -q '^app-native-gateway ready' "$out" 2>/dev/null; do
    kill -0 "$gateway_pid" 2>/dev/null || die "gateway exited: $(cat "$err")"
    tries=$((tries + 1))
    # GATEWAY_READY_SECONDS: a loaded machine starts a gateway under valgrind slowly.
    [ "$tries" -lt $((${GATEWAY_READY_SECONDS:-10} * 10)) ] || die "gateway not ready after ${GATEWAY_READY_SECONDS:-10} s"
    sleep 0.1
  done
  local ready
  ready=$(grep -m1 '^app-native-gateway ready' "$out")
  gateway_port=$(echo "$ready" | sed -E 's/.* listen=[^ ]*:([0-9]+) .*/\1/')
  gateway_admin_port=$(echo "$ready" | sed -E 's/.* admin=[^ ]*:([0-9]+).*/\1/')
}

# Checks that http://127.0.0.1:$1/ answers 200 with the upstream's body.
check_endpoint() {
  local name="$1" port="$2" body
  body=$("$python_bin" - "$port" <<'EOF'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5)
c.request("GET", "/")
r = c.getresponse()
print(r.status, r.read().decode().strip())
EOF
  ) || die "$name does not answer"
  [ "$body" = "200 hello from the upstream" ] || die "$name answered: $body"
}

# utime and stime in clock ticks ("user system") of a process and its direct children (nginx
# master + workers; the gateway's threads are counted in its own /proc/<pid>/stat).
cpu_ticks() {
  local pid="$1" user=0 system=0 p u s
  for p in "$pid" $(pgrep -P "$pid" || true); do
    read -r u s < <(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk '{print $12, $13}') || continue
    user=$((user + ${u:-0}))
    system=$((system + ${s:-0}))
  done
  echo "$user $system"
}

clock_ticks=$(getconf CLK_TCK)

# VmRSS and VmHWM of a process, in kB: "rss hwm".
rss_kb() {
  awk '/^VmRSS:/ {r = $2} /^VmHWM:/ {h = $2} END {print r, h}' "/proc/$1/status"
}

load_average() { cut -d' ' -f1-3 /proc/loadavg; }

# The value of a gateway metric from the admin listener (first matching line), or "?".
gateway_metric() {
  "$python_bin" - "$gateway_admin_port" "$1" <<'EOF' || echo "?"
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5)
c.request("GET", "/metrics")
for line in c.getresponse().read().decode().splitlines():
    if line.startswith(sys.argv[2] + " ") or line.startswith(sys.argv[2] + "{"):
        print(line.rsplit(" ", 1)[1]); break
else:
    print("?")
EOF
}

# Busy clock ticks of the whole machine (all CPUs: user nice system irq softirq steal).
machine_busy_ticks() {
  awk '$1 == "cpu" {print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat
}

# CPU ticks of this shell's reaped children (wrk runs as one), from the `times` builtin, into
# children_ticks_now. `times` must run in this shell: in a $(...) subshell it sees no children.
read_children_ticks() {
  times >"$work_dir/times"
  children_ticks_now=$(awk -v hz="$clock_ticks" 'NR == 2 {
    total = 0
    for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); total += p[1] * 60 + p[2] }
    printf "%d", total * hz + 0.5 }' "$work_dir/times")
}

# utime+stime in clock ticks of a process and its direct children.
ticks_sum() {
  cpu_ticks "$1" | awk '{print $1 + $2}'
}

# Waits (WAIT_FOR_WRK seconds at most, 900) while a wrk run by someone else is going on: two
# load generators on 2 cores measure each other. Call it only while no wrk of ours runs.
wait_for_other_wrk() {
  local waited=0 limit="${WAIT_FOR_WRK:-900}"
  while pgrep -x wrk >/dev/null; do
    [ "$waited" -eq 0 ] && echo "waiting for another wrk to finish…" >&2
    if [ "$waited" -ge "$limit" ]; then
      echo "still a wrk running after ${limit} s; measuring anyway" >&2
      return
    fi
    sleep 1
    waited=$((waited + 1))
  done
}
