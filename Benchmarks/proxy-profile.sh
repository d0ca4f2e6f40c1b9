#!/usr/bin/env bash
# Profile of the gateway's proxy path (HTTP/1.1 engine and reverse proxy).
# Runs the gateway (release build, EVENT_LOOPS=2, ACCESS_LOG=false) under
# `valgrind --tool=callgrind` in front of an nginx upstream, sends exactly REQUESTS keep-alive
# GETs over CONNECTIONS connections (Python client), and prints instructions per request and
# the top functions (inclusive and exclusive), demangled. Only the request phase is counted:
# start-up is zeroed with callgrind_control before the first request.
# Callgrind counts user-space instructions only; kernel time (syscalls, loopback TCP) is not in it.
#
# Environment: REQUESTS (20000), CONNECTIONS (20), TOP (30), KEEP (a directory to keep
# callgrind.out in), GATEWAY_BIN (else built here). Needs: valgrind binutils nginx-light python3.
set -euo pipefail
source "$(dirname "$0")/common.sh"

requests="${REQUESTS:-20000}"
connections="${CONNECTIONS:-20}"
top="${TOP:-30}"
demangle="${SWIFT_DEMANGLE:-$(command -v swift-demangle || echo cat)}"

binary=$(gateway_binary)
start_upstream
out="$work_dir/callgrind.out"
# Valgrind 3.19 (Debian 12) cannot read the DWARF 5 the Swift toolchain emits and gives up;
# a copy without debug sections keeps the ELF symbols, which is all a function profile needs.
real_binary="$work_dir/app-native-gateway"
objcopy --strip-debug "$binary" "$real_binary"
binary="$work_dir/gateway-under-valgrind"
cat >"$binary" <<EOF
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file=$out --separate-threads=no "$real_binary" "\$@"
EOF
chmod +x "$binary"
start_gateway "$binary"

"$python_bin" - "$gateway_port" 20 >/dev/null <<'EOF'
import socket, sys
# Warm-up: a few requests so lazy initialisation is out of the measured phase.
port, count = int(sys.argv[1]), int(sys.argv[2])
s = socket.create_connection(("127.0.0.1", port))
for _ in range(count):
    s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    data = b""
    while not data.endswith(b"hello from the upstream\n"):
        data += s.recv(4096)
EOF
callgrind_control --zero "$gateway_pid" >/dev/null 2>&1

started=$(date +%s.%N)
"$python_bin" - "$gateway_port" "$requests" "$connections" <<'EOF'
import asyncio, sys
port, total, conns = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: proxy-profile\r\nAccept: */*\r\n\r\n"
async def client(n):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for _ in range(n):
        writer.write(REQUEST)
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        length = int([l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0].split(b":")[1])
        await reader.readexactly(length)
    writer.close()
async def main():
    per = [total // conns + (1 if i < total % conns else 0) for i in range(conns)]
    await asyncio.gather(*(client(n) for n in per))
asyncio.run(main())
EOF
elapsed=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')
callgrind_control --dump=requests "$gateway_pid" >/dev/null 2>&1
sleep 1
dump=$(ls -t "$out"* | head -1)
[ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$dump" "$KEEP/"

total=$(callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
echo "machine: $(nproc) cores, load average: $(load_average)"
echo "$requests requests over $connections keep-alive connections in $elapsed s under callgrind"
printf '%-44s %14s\n' "instructions (user space) in the request phase" "$total"
printf '%-44s %14.0f\n' "instructions per request" "$(awk -v t="$total" -v n="$requests" 'BEGIN {print t / n}')"
echo
# One row per function: instructions per request, share of the total, name (library basename).
# A dump taken while the loops run charges the frames still on the stack (thread start, the
# loop's closure) with their inclusive cost; those rows (>= 95% of the total) are dropped from
# the exclusive list.
rows() {
  callgrind_annotate --inclusive="$1" --threshold=100 "$dump" 2>/dev/null \
    | awk '/^-+$/ {dash++; next} dash >= 3 && /^ *[0-9,]+ / {print}' \
    | awk -v n="$requests" -v t="$total" -v self="$1" -v top="$top" '{
        c = $1; gsub(",", "", c); c += 0
        if (self == "no" && c >= 0.95 * t) next
        if (++shown > top) next  # read on: closing the pipe early would fail under pipefail
        name = $0; sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", name); sub(/^\?\?\?:/, "", name); sub(/^\.?\/[^ :]*:/, "", name)
        lib = name; sub(/.*\[/, "", lib); sub(/\]$/, "", lib); n1 = split(lib, parts, "/"); lib = parts[n1]
        sub(/ \[[^]]*\]$/, "", name)
        printf "%9.0f %6.2f%%  %s  [%s]\n", c / n, 100 * c / t, name, lib }' \
    | "$demangle" --simplified | cut -c1-220
}
echo "top $top functions by exclusive (self) instructions per request:"
rows no
echo
echo "top $top functions by inclusive instructions per request:"
rows yes
