#!/usr/bin/env bash
# Idle keep-alive connections benchmark (HTTP/1.1 engine and reverse proxy).
# Starts an nginx upstream and the gateway (release build, EVENT_LOOPS=2, ACCESS_LOG=false) on
# loopback, opens CONNECTIONS (10,000) keep-alive connections to the gateway with a Python
# asyncio client, sends one GET on each and reads the answer (so each connection has served an
# exchange, as a real idle keep-alive connection has), holds them idle for HOLD seconds and
# prints the gateway's VmRSS/VmHWM before, while held and after closing. Goal: RSS < 100 MB
# with 10,000 idle connections.
#
# Environment: CONNECTIONS (10000), HOLD (5), REQUEST_FIRST (1; 0 = connect only),
# EVENT_LOOPS (2), GATEWAY_BIN (else built here). Needs: nginx-light python3 procps.
set -euo pipefail
source "$(dirname "$0")/common.sh"

connections="${CONNECTIONS:-10000}"
hold="${HOLD:-5}"
request_first="${REQUEST_FIRST:-1}"

# Client and gateway each hold one fd per connection, plus some.
needed=$((connections + 512))
if [ "$(ulimit -n)" -lt "$needed" ]; then
  ulimit -n "$needed" 2>/dev/null || die "ulimit -n $needed refused (hard limit $(ulimit -Hn))"
fi

binary=$(gateway_binary)
start_upstream
# MAX_CONNECTIONS defaults to 10,000: leave room so the limit is not what is measured.
GATEWAY_ENV="MAX_CONNECTIONS=$((connections + 100)) ${GATEWAY_ENV:-}" start_gateway "$binary"
check_endpoint gateway "$gateway_port"

echo "machine: $(nproc) cores, $(uname -r); load average: $(load_average); ulimit -n $(ulimit -n)"
read -r rss_start hwm_start < <(rss_kb "$gateway_pid")

"$python_bin" - "$gateway_port" "$connections" "$request_first" "$hold" "$gateway_pid" "$gateway_admin_port" >"$work_dir/client.out" <<'EOF'
import asyncio, sys, time

port, count, request_first, hold, pid, admin = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1",
                                              float(sys.argv[4]), sys.argv[5], int(sys.argv[6]))
REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

def rss():
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.split()[0] if value.split() else ""
    return int(fields["VmRSS"]), int(fields["VmHWM"])

def tcp_memory_pages():
    with open("/proc/net/sockstat") as sockstat:
        for line in sockstat:
            if line.startswith("TCP:"):
                parts = line.split()
                return int(parts[parts.index("mem") + 1])
    return 0

async def open_connections_metric():
    reader, writer = await asyncio.open_connection("127.0.0.1", admin)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n\r\n")
    text = (await reader.read()).decode()
    writer.close()
    for line in text.splitlines():
        if line.startswith("appnative_http_connections_open "):
            return line.split()[1]
    return "?"

async def open_one(gate):
    async with gate:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        if request_first:
            writer.write(REQUEST)
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(head.split(b"\r\n", 1)[0].decode())
        return reader, writer

async def main():
    gate = asyncio.Semaphore(256)  # stays under the listen backlog
    print(f"tcp_mem_before {tcp_memory_pages()}")
    started = time.monotonic()
    results = await asyncio.gather(*(open_one(gate) for _ in range(count)), return_exceptions=True)
    opened = [r for r in results if not isinstance(r, BaseException)]
    failures = [r for r in results if isinstance(r, BaseException)]
    print(f"opened {len(opened)} failed {len(failures)} seconds {time.monotonic() - started:.1f}")
    if failures:
        print(f"first_failure {failures[0]!r}")
    await asyncio.sleep(1)
    print("held_rss %d %d" % rss())
    print(f"tcp_mem_held {tcp_memory_pages()}")
    print(f"open_metric {await open_connections_metric()}")
    await asyncio.sleep(max(0.0, hold - 1))
    # The loop has read any EOF or reset the gateway sent meanwhile.
    alive = sum(1 for reader, writer in opened if not reader.at_eof() and not writer.is_closing())
    print(f"alive_after_hold {alive}")
    print("end_rss %d %d" % rss())
    for _, writer in opened:
        writer.close()
    await asyncio.sleep(2)
    print("closed_rss %d %d" % rss())

asyncio.run(main())
EOF

value() { awk -v k="$1" '$1 == k {print $2, $3}' "$work_dir/client.out" | sed "s/ $//"; }
read -r opened _ failed _ <<<"$(awk '$1 == "opened" {print $2, $3, $4, $5}' "$work_dir/client.out")"
read -r rss_held hwm_held <<<"$(value held_rss)"
read -r rss_end hwm_end <<<"$(value end_rss)"
read -r rss_closed hwm_closed <<<"$(value closed_rss)"
alive=$(value alive_after_hold)
grep '^first_failure' "$work_dir/client.out" || true
open_metric=$(value open_metric)
open_after=$(gateway_metric appnative_http_connections_open)
page_kb=$(($(getconf PAGESIZE) / 1024))
tcp_before=$(value tcp_mem_before)
tcp_held=$(value tcp_mem_held)
mb() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }

echo "connections: $opened opened, $failed failed (in $(awk '$1 == "opened" {print $6}' "$work_dir/client.out") s), request first: $request_first"
printf '%-44s %10s MB  (VmHWM %s MB)\n' "gateway RSS before" "$(mb "$rss_start")" "$(mb "$hwm_start")"
printf '%-44s %10s MB  (VmHWM %s MB)\n' "gateway RSS with $opened idle connections" "$(mb "$rss_held")" "$(mb "$hwm_held")"
printf '%-44s %10s MB  (VmHWM %s MB)\n' "gateway RSS after ${hold} s idle" "$(mb "$rss_end")" "$(mb "$hwm_end")"
printf '%-44s %10s MB  (VmHWM %s MB)\n' "gateway RSS 2 s after closing them" "$(mb "$rss_closed")" "$(mb "$hwm_closed")"
printf '%-44s %10s KB\n' "per idle connection" "$(awk -v a="$rss_held" -v b="$rss_start" -v n="$opened" 'BEGIN {printf "%.1f", (a - b) / n}')"
printf '%-44s %10s\n' "open connections (gateway metric, held)" "$open_metric"
printf '%-44s %10s\n' "connections still open after ${hold} s idle" "$alive"
printf '%-44s %10s\n' "open connections (gateway metric, closed)" "$open_after"
printf '%-44s %10s MB  (kernel, both ends; not in RSS)\n' "TCP socket memory added while held" \
  "$(awk -v a="$tcp_held" -v b="$tcp_before" -v p="$page_kb" 'BEGIN {printf "%.1f", (a - b) * p / 1024}')"
verdict=$(awk -v h="$hwm_end" -v o="$opened" -v n="$connections" 'BEGIN {print (h < 100 * 1024 && o == n) ? "PASS" : "FAIL"}')
printf '%-44s %10s  (goal: VmHWM < 100 MB with all %s open)\n' "idle connections" "$verdict" "$connections"
