#!/usr/bin/env bash
# APNs sender throughput (issue #6): pushes per second from one process over one HTTP/2
# connection against Tests/Peers/fake_apns.py (h2c), compared with h2load posting the same
# payload to the same fake (the fake's ceiling; goal: the gateway reaches >= 0.8 of it) and with
# aioapns, the Python reference's transport (goal: >= 3x it).
#
# Needs (Debian): python3-h2, python3-cryptography, python3-jwt, nghttp2-client (h2load); the
# aioapns venv of scripts/install-deps.sh; a release build of app-native-gateway.
# PUSHES (default 5000) pushes each, 100 streams in flight.
set -euo pipefail
source "$(dirname "$0")/common.sh"
pushes="${PUSHES:-5000}"
interop_python="${APPNATIVE_INTEROP_PYTHON:-$HOME/.cache/appnative/interop-venv/bin/python}"
[ -x "$interop_python" ] || die "no aioapns venv at $interop_python (scripts/install-deps.sh)"
command -v h2load >/dev/null || die "h2load missing (apt-get install nghttp2-client)"
gateway="$(gateway_binary)"
key="$repo_dir/keys/test/apns-test.p8"
key_id=TESTKEY123 team_id=TEAM123456 bundle=com.example.appnative
token=$(printf 'ab%.0s' $(seq 32))
payload='{"aps":{"content-available":1},"webapp_id":"bench","approvals_refresh":true}'

start_fake() {
  "$python_bin" "$repo_dir/Tests/Peers/fake_apns.py" --signing-key "$key" --key-id "$key_id" \
    --team-id "$team_id" --bundle-id "$bundle" > "$work_dir/fake.out" 2>&1 &
  started_pids+=($!)
  fake_pid=$!
  for _ in $(seq 50); do grep -q READY "$work_dir/fake.out" && break; sleep 0.1; done
  fake_port=$(awk '/READY/ {print $2}' "$work_dir/fake.out")
  [ -n "$fake_port" ] || die "fake_apns.py did not start"
}
stop_fake() { kill -TERM "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; }
rate() { awk -v n="$1" -v s="$2" -v e="$3" 'BEGIN {printf "%.0f", n / (e - s)}'; }

# 1. h2load: the same request (valid provider token, headers, payload), 1 connection, 100 streams.
start_fake
jwt=$("$python_bin" -c '
import jwt, sys, time
print(jwt.encode({"iss": sys.argv[2], "iat": int(time.time())}, open(sys.argv[1]).read(), algorithm="ES256",
                 headers={"kid": sys.argv[3]}))' "$key" "$team_id" "$key_id")
printf '%s' "$payload" > "$work_dir/payload.json"
h2load_rate=$(h2load -n "$pushes" -c 1 -m 100 -d "$work_dir/payload.json" \
  -H "authorization: bearer $jwt" -H "apns-topic: $bundle" -H "apns-push-type: background" \
  -H "apns-priority: 5" -H "content-type: application/json" \
  "http://127.0.0.1:$fake_port/3/device/$token" | awk '/^finished in/ {gsub(",", "", $4); print $4}')
stop_fake

# 2. the gateway's sender: `push approvals` with PUSHES tokens (one process, one connection).
start_fake
tokens=()
for i in $(seq "$pushes"); do tokens+=(--token "$(printf '%064x' "$i")"); done
start=$(date +%s.%N)
APNS_KEY="$(cat "$key")" APNS_KEY_ID=$key_id APNS_TEAM_ID=$team_id APNS_BUNDLE_ID=$bundle \
  APNS_BASE_URL="http://127.0.0.1:$fake_port" "$gateway" push approvals --webapp-id bench "${tokens[@]}" \
  > "$work_dir/gateway.out"
end=$(date +%s.%N)
sent=$(grep -c '"sent":true' "$work_dir/gateway.out" || true)
[ "$sent" -eq "$pushes" ] || die "gateway sent $sent of $pushes"
gateway_rate=$(rate "$pushes" "$start" "$end")
stop_fake

# 3. aioapns: the same pushes, 100 in flight on one connection.
start_fake
aioapns_rate=$("$interop_python" - "$fake_port" "$key" "$key_id" "$team_id" "$bundle" "$pushes" <<'PY'
import asyncio, sys, time, uuid
from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsDevelopmentClientProtocol
port, key, key_id, team, bundle, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6])
APNsDevelopmentClientProtocol.APNS_SERVER = "127.0.0.1"
APNsDevelopmentClientProtocol.APNS_PORT = int(port)
# aioapns always speaks TLS; the fake here is h2c, so replace the connection's TLS with plain TCP.
from aioapns.connection import APNsKeyConnectionPool
async def plain(self, factory):
    _, protocol = await self.loop.create_connection(protocol_factory=factory, host="127.0.0.1", port=int(port))
    return protocol
APNsKeyConnectionPool._create_connection = plain
async def main():
    client = APNs(key=open(key).read(), key_id=key_id, team_id=team, topic=bundle, use_sandbox=True, max_connections=1)
    semaphore = asyncio.Semaphore(100)
    async def one(i):
        async with semaphore:
            request = NotificationRequest(device_token="%064x" % i, notification_id=str(uuid.uuid4()),
                message={"aps": {"content-available": 1}, "webapp_id": "bench", "approvals_refresh": True},
                priority=5, push_type=PushType.BACKGROUND)
            result = await client.send_notification(request)
            assert result.is_successful, result.description
    start = time.monotonic()
    await asyncio.gather(*(one(i) for i in range(n)))
    print("%.0f" % (n / (time.monotonic() - start)))
asyncio.run(main())
PY
)
stop_fake

printf '%-46s %10s\n' "h2load -> fake_apns.py pushes/s (ceiling)" "$h2load_rate"
printf '%-46s %10s\n' "app-native-gateway push pushes/s" "$gateway_rate"
printf '%-46s %10s\n' "aioapns pushes/s" "$aioapns_rate"
printf '%-46s %10.2f  (goal >= 0.80)\n' "gateway / h2load" "$(awk -v a="$gateway_rate" -v b="$h2load_rate" 'BEGIN {print a / b}')"
printf '%-46s %10.2f  (goal >= 3.00)\n' "gateway / aioapns" "$(awk -v a="$gateway_rate" -v b="$aioapns_rate" 'BEGIN {print a / b}')"
echo "pushes per run: $pushes; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
