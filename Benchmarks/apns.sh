#!/usr/bin/env bash
# APNs push throughput and push API memory.
#
# One fake APNs server (Tests/Peers/fake_apns.py, TLS with keys/test, no --record) serves, one
# after the other, the same alert payload and headers (apns-push-type alert, priority 10, a
# valid ES256 provider token) from:
#   (a) ours: the release gateway's push API (`POST /push/alert`, batches of PUSH_MAX_BATCH
#       tokens, one request at a time): one process, the sender's one HTTP/2 connection,
#       100 streams in flight (APNsSenderOptions.maxConcurrentPushes);
#   (b) h2load (Debian nghttp2-client): one connection, STREAMS (100) streams in flight: the
#       fake's ceiling;
#   (c) aioapns 4.0 (the Python reference's transport, Tests/Peers/aioapns_send.py bench):
#       one connection, 100 pushes in flight.
# Each prints pushes/s; the CPU each client and the fake used per push is printed too, so a
# starved or saturated fake can be told apart from a slow client. Then a fresh gateway takes
# RSS_TOKENS (100000) distinct tokens through the push API in RSS_CONCURRENCY (4) concurrent
# requests of PUSH_MAX_BATCH tokens, and its peak RSS (VmHWM) is printed.
#
# Environment: PUSHES (5000 per client), PUSH_MAX_BATCH (10000, the gateway's ceiling), STREAMS
# (100), RSS_TOKENS (100000; 0 skips), RSS_CONCURRENCY (4), EVENT_LOOPS (2), GATEWAY_BIN (else
# built here), PERF_DIR (a directory: `perf record` of the gateway while it pushes, one file per
# fake).
# Needs: nghttp2-client nginx-light python3 python3-h2 python3-cryptography procps iproute2
# (scripts/install-deps.sh) and the PyPI venv (scripts/install-python-tools.sh).
set -euo pipefail
source "$(dirname "$0")/common.sh"

pushes="${PUSHES:-5000}"
max_batch="${PUSH_MAX_BATCH:-10000}"
streams="${STREAMS:-100}"
rss_tokens="${RSS_TOKENS:-100000}"
rss_concurrency="${RSS_CONCURRENCY:-4}"
venv_python="$repo_dir/.build/python-tools/bin/python"
key_file="$repo_dir/keys/test/apns-test.p8"
key_id=TESTKEY123
team_id=TEAM123456
bundle_id=com.example.appnative
api_key=bench-push-api-key-0123456789
token=$(printf 'ab%.0s' $(seq 32))

command -v h2load >/dev/null || die "h2load missing: scripts/install-deps.sh (nghttp2-client)"
[ -x "$venv_python" ] || die "no PyPI venv: scripts/install-python-tools.sh (aioapns)"
binary=$(gateway_binary)
start_upstream # `serve` needs an upstream; no request goes to it

# The fake APNs server: sets fake_port, fake_pid.
"$python_bin" "$repo_dir/Tests/Peers/fake_apns.py" --signing-key "$key_file" --key-id "$key_id" \
  --team-id "$team_id" --bundle-id "$bundle_id" --cert "$repo_dir/keys/test/localhost.pem" \
  --key "$repo_dir/keys/test/localhost-key.pem" >"$work_dir/fake.out" 2>"$work_dir/fake.err" &
fake_pid=$!
started_pids+=("$fake_pid")
for _ in $(seq 100); do grep -q '^READY' "$work_dir/fake.out" 2>/dev/null && break; sleep 0.1; done
fake_port=$(awk '/^READY/ {print $2}' "$work_dir/fake.out")
[ -n "$fake_port" ] || die "fake APNs server did not start: $(cat "$work_dir/fake.err")"

# A gateway with the push API pointed at the fake (common.sh's start_gateway with the APNs
# settings). Sets gateway_pid, gateway_admin_port.
start_push_gateway() {
  start_gateway "$binary" PUSH_API_KEYS="$api_key" PUSH_MAX_BATCH="$max_batch" APNS_KEY="$(cat "$key_file")" \
    APNS_KEY_ID="$key_id" APNS_TEAM_ID="$team_id" APNS_BUNDLE_ID="$bundle_id" \
    APNS_BASE_URL="https://127.0.0.1:$fake_port" APNS_CA_FILE="$repo_dir/keys/test/ca.pem"
}

# The push API client: TOTAL distinct tokens in requests of BATCH, CONCURRENCY at a time.
cat >"$work_dir/post.py" <<'EOF'
import http.client, json, sys, threading, time
port, key, total, batch, concurrency = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
batches = [list(range(start, min(start + batch, total))) for start in range(0, total, batch)]
lock = threading.Lock()
counts = {"sent": 0, "not_sent": 0, "errors": 0, "reasons": {}}
def post(indexes):
    body = json.dumps({"tokens": ["ab" * 28 + "%08x" % i for i in indexes], "title": "Benchmark",
                       "body": "One push of many"})
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=900)
    connection.request("POST", "/push/alert", body, {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    response = connection.getresponse()
    answer = response.read()
    with lock:
        if response.status != 200:
            counts["errors"] += 1
            print(response.status, answer[:300], file=sys.stderr)
            return
        result = json.loads(answer)
        counts["sent"] += result["sent"]
        counts["not_sent"] += result["not_sent"]
        for entry in result["results"]:
            if not entry["sent"]:
                reason = str(entry.get("reason") or entry.get("error") or entry)[:80]
                counts["reasons"][reason] = counts["reasons"].get(reason, 0) + 1
def worker():
    while True:
        with lock:
            if not batches:
                return
            indexes = batches.pop(0)
        post(indexes)
post([0])  # warm-up: the connection and the provider token are not measured
counts = {"sent": 0, "not_sent": 0, "errors": 0, "reasons": {}}
start = time.monotonic()
threads = [threading.Thread(target=worker) for _ in range(concurrency)]
for thread in threads: thread.start()
for thread in threads: thread.join()
seconds = time.monotonic() - start
print(json.dumps(dict(counts, seconds=round(seconds, 3), pushes_per_second=round(total / seconds, 1))))
EOF

json_field() { "$python_bin" -c "import json,sys; print(json.loads(sys.stdin.read())['$1'])"; }
per_push_us() { awk -v t="$1" -v hz="$clock_ticks" -v n="$2" 'BEGIN {printf "%.0f", t / hz / n * 1e6}'; }
core_share() { awk -v t="$1" -v hz="$clock_ticks" -v s="$2" 'BEGIN {printf "%.2f", t / hz / s}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

echo "machine: $(nproc) cores (shared with other builds), $(uname -r); load average at start: $(load_average)"
echo "gateway binary: $binary"
echo "fake APNs: TLS, 127.0.0.1:$fake_port; $pushes pushes per client, $streams in flight; payload" \
  '{"aps":{"alert":{"title":"Benchmark","body":"One push of many"},"sound":"default"}}'
row() {
  printf '%-34s %10s %8s %14s %16s %14s %s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$(load_average)"
}

# The provider token h2load sends (ES256, signed once).
jwt=$("$python_bin" - "$key_file" "$key_id" "$team_id" <<'EOF'
import base64, json, sys, time
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
key = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), password=None)
b64 = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
signing = b64(json.dumps({"alg": "ES256", "kid": sys.argv[2]}).encode()) + "." + \
    b64(json.dumps({"iss": sys.argv[3], "iat": int(time.time())}).encode())
r, s = decode_dss_signature(key.sign(signing.encode(), ec.ECDSA(hashes.SHA256())))
print(signing + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")))
EOF
)

# The three clients against one fake (fake_port, fake_pid set); sets ours_rate, h2_rate, aio_rate.
run_clients() {
  printf '%-34s %10s %8s %14s %16s %14s %s\n' client "pushes/s" "sent" "client us/push" "fake cores used" "fake us/push" "load (1 5 15)"
  # (a) ours
  start_push_gateway
  gw_before=$(ticks_sum "$gateway_pid")
  fake_before=$(ticks_sum "$fake_pid")
  if [ -n "${PERF_DIR:-}" ]; then
    mkdir -p "$PERF_DIR"
    perf record -F 1999 --call-graph dwarf,16384 -p "$gateway_pid" -o "$PERF_DIR/ours-$fake_port.data" 2>/dev/null &
    perf_pid=$!
    sleep 0.5
  fi
  t0=$(date +%s.%N)
  ours_out=$("$python_bin" "$work_dir/post.py" "$gateway_admin_port" "$api_key" "$pushes" "$max_batch" 1) ||
    die "push API client failed; gateway stderr: $(tail -c 3000 "$work_dir"/gateway-*.err)"
  t1=$(date +%s.%N)
  if [ -n "${PERF_DIR:-}" ]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
  gw_ticks=$(($(ticks_sum "$gateway_pid") - gw_before))
  fake_ticks=$(($(ticks_sum "$fake_pid") - fake_before))
  ours_rate=$(echo "$ours_out" | json_field pushes_per_second)
  ours_sent=$(echo "$ours_out" | json_field sent)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')
  connections=$(ss -Htn state established "( dport = :$fake_port )" | wc -l)
  row "ours (push API, gateway)" "$ours_rate" "$ours_sent" "$(per_push_us "$gw_ticks" "$pushes")" \
    "$(core_share "$fake_ticks" "$wall")" "$(per_push_us "$fake_ticks" "$pushes")"
  kill -TERM "$gateway_pid" 2>/dev/null || true
  wait "$gateway_pid" 2>/dev/null || true

  # (b) h2load: the fake's ceiling
  printf '%s' '{"aps":{"alert":{"title":"Benchmark","body":"One push of many"},"sound":"default"}}' >"$work_dir/payload.json"
  read_children_ticks
  children_before=$children_ticks_now
  fake_before=$(ticks_sum "$fake_pid")
  t0=$(date +%s.%N)
  h2load -n "$pushes" -c 1 -m "$streams" -d "$work_dir/payload.json" -H "authorization: bearer $jwt" \
    -H "apns-topic: $bundle_id" -H "apns-push-type: alert" -H "apns-priority: 10" \
    "https://127.0.0.1:$fake_port/3/device/$token" >"$work_dir/h2load.out" 2>&1 || die "h2load: $(tail -5 "$work_dir/h2load.out")"
  t1=$(date +%s.%N)
  read_children_ticks
  h2_ticks=$((children_ticks_now - children_before))
  fake_ticks=$(($(ticks_sum "$fake_pid") - fake_before))
  h2_rate=$(sed -nE 's/^finished in [^,]*, ([0-9.]+) req\/s.*/\1/p' "$work_dir/h2load.out")
  h2_sent=$(sed -nE 's/^status codes: ([0-9]+) 2xx.*/\1/p' "$work_dir/h2load.out")
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')
  row "h2load (fake's ceiling)" "$h2_rate" "$h2_sent" "$(per_push_us "$h2_ticks" "$pushes")" \
    "$(core_share "$fake_ticks" "$wall")" "$(per_push_us "$fake_ticks" "$pushes")"

  # (c) aioapns
  read_children_ticks
  children_before=$children_ticks_now
  fake_before=$(ticks_sum "$fake_pid")
  t0=$(date +%s.%N)
  aio_out=$("$venv_python" "$repo_dir/Tests/Peers/aioapns_send.py" bench --port "$fake_port" \
    --ca-file "$repo_dir/keys/test/ca.pem" --key-file "$key_file" --key-id "$key_id" --team-id "$team_id" \
    --bundle-id "$bundle_id" --count "$pushes" --token "$token" --concurrency "$streams")
  t1=$(date +%s.%N)
  read_children_ticks
  aio_ticks=$((children_ticks_now - children_before))
  fake_ticks=$(($(ticks_sum "$fake_pid") - fake_before))
  aio_rate=$(echo "$aio_out" | json_field pushes_per_second)
  aio_sent=$(echo "$aio_out" | json_field sent)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')
  row "aioapns 4.0" "$aio_rate" "$aio_sent" "$(per_push_us "$aio_ticks" "$pushes")" \
    "$(core_share "$fake_ticks" "$wall")" "$(per_push_us "$fake_ticks" "$pushes")"
}

echo
echo "== fake 1: Tests/Peers/fake_apns.py (Python h2, validates every push and provider token)"
run_clients
echo "gateway connections to the fake after (a): $connections"
py_ours=$ours_rate py_h2=$h2_rate py_aio=$aio_rate

# Fake 2: nginx as an APNs stand-in (TLS, HTTP/2, 200 with the request's apns-id for every POST
# to /3/device/): a C server that is not the bottleneck, so the clients' own speed shows. The
# answer comes from a keep-alive upstream in the same nginx, so the whole request body is read
# first: a plain `return 200` answers before the body and resets the stream (clients then see
# HTTP/2 stream errors and retry).
nginx_fake_port=$(free_port)
answer_port=$(free_port)
start_nginx fake-apns "
    # APNs answers with the request's apns-id (clients such as aioapns match responses by it).
    map \$http_apns_id \$apns_id { \"\" 77e2e8ee-0b4e-4c8e-9c56-1f7d0f3f1a2b; default \$http_apns_id; }
    upstream answer { server 127.0.0.1:$answer_port; keepalive 64; }
    server { listen 127.0.0.1:$answer_port; location / { return 200; } }
    server {
        listen 127.0.0.1:$nginx_fake_port ssl http2;
        ssl_certificate $repo_dir/keys/test/localhost.pem;
        ssl_certificate_key $repo_dir/keys/test/localhost-key.pem;
        http2_max_concurrent_streams 1000;
        location /3/device/ {
            proxy_pass http://answer;
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            add_header apns-id \$apns_id;
        }
    }" 1 "$nginx_fake_port"
fake_port=$nginx_fake_port fake_pid=$nginx_pid
echo
echo "== fake 2: nginx HTTP/2 stand-in (answers 200 without checking anything)"
run_clients
echo "gateway connections to the fake after (a): $connections"

echo
printf '%-52s %8s  (goal >= 0.80)\n' "pushes/s ours / h2load, Python fake" "$(ratio "$py_ours" "$py_h2")"
printf '%-52s %8s  (goal >= 3.00; the fake caps both)\n' "pushes/s ours / aioapns, Python fake" "$(ratio "$py_ours" "$py_aio")"
printf '%-52s %8s  (goal >= 0.80)\n' "pushes/s ours / h2load, nginx stand-in" "$(ratio "$ours_rate" "$h2_rate")"
printf '%-52s %8s  (goal >= 3.00)\n' "pushes/s ours / aioapns, nginx stand-in" "$(ratio "$ours_rate" "$aio_rate")"
echo "(client us/push: CPU of the gateway (all its threads, incl. JSON in and out of the push API),"
echo " of h2load, of the aioapns process; fake cores used: CPU seconds of the fake / wall seconds —"
echo " near 1.00 for the single-threaded Python fake means it is the bottleneck; fake us/push bounds"
echo " its ceiling at 1e6 / (fake us/push) pushes/s on one whole core)"

# Peak RSS of a fresh gateway while RSS_TOKENS tokens go through the push API.
if [ "$rss_tokens" -gt 0 ]; then
  start_push_gateway
  read -r rss_before _ < <(rss_kb "$gateway_pid")
  t0=$(date +%s.%N)
  rss_out=$("$python_bin" "$work_dir/post.py" "$gateway_admin_port" "$api_key" "$rss_tokens" "$max_batch" "$rss_concurrency") ||
    die "push API client failed; gateway stderr: $(tail -c 3000 "$work_dir"/gateway-*.err)"
  t1=$(date +%s.%N)
  read -r rss_after hwm < <(rss_kb "$gateway_pid")
  mb() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
  echo "push API memory: $rss_tokens tokens, batches of $max_batch, $rss_concurrency concurrent requests:" \
    "sent $(echo "$rss_out" | json_field sent), not sent $(echo "$rss_out" | json_field not_sent)," \
    "errors $(echo "$rss_out" | json_field errors) $(echo "$rss_out" | json_field reasons), $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", b - a}') s"
  echo "gateway RSS before: $(mb "$rss_before") MB; peak (VmHWM): $(mb "$hwm") MB; after: $(mb "$rss_after") MB"
fi
echo "load average at end: $(load_average)"
