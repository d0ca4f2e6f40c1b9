#!/usr/bin/env bash
# Builds the libFuzzer harnesses in Tests/Fuzz and runs each one for a bounded time, seeded
# with corpora made from the committed vector files (docs/style.md §6).
#
#   scripts/fuzz.sh                      every harness, FUZZ_SECONDS (default 60) each
#   FUZZ_SECONDS=300 scripts/fuzz.sh FuzzJWT
#
# Environment:
#   FUZZ_SECONDS    run time per harness, seconds (default 60)
#   FUZZ_WORK       work folder for corpora, crash artifacts and logs
#                   (default Tests/Fuzz/.build/fuzz-work)
#   FUZZ_CONFIG     SwiftPM configuration of the harness build (default release)
#
# Exits non-zero when a harness crashes, leaks, times out or fails its invariants; the input
# that did it is kept under $FUZZ_WORK/<harness>/artifacts/ (replay: run the harness binary with
# that file as its only argument). Needs the toolchain's ld.lld (gold cannot link
# -sanitize=fuzzer) and python3 for the seeds.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
package="$root/Tests/Fuzz"
seconds="${FUZZ_SECONDS:-60}"
work="${FUZZ_WORK:-$package/.build/fuzz-work}"
config="${FUZZ_CONFIG:-release}"
all_harnesses=(FuzzHTTPRequestParser FuzzHTTPResponseParser FuzzMultipartParser FuzzJSONParser FuzzJWT FuzzJWKS
  FuzzAuthorizationHook FuzzModels FuzzHTTP2Connection)
if [ $# -gt 0 ]; then harnesses=("$@"); else harnesses=("${all_harnesses[@]}"); fi

for harness in "${harnesses[@]}"; do
  case " ${all_harnesses[*]} " in
    *" $harness "*) ;;
    *) echo "fuzz: unknown harness $harness (known: ${all_harnesses[*]})" >&2; exit 2 ;;
  esac
done
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz: FUZZ_SECONDS must be a positive integer, got '$seconds'" >&2
  exit 2
fi

# -fuse-ld=lld: clang finds ld.lld next to itself in the Swift toolchain, else on PATH
# (Debian package lld).
toolchain_bin="$(dirname "$(readlink -f "$(command -v swiftc)")")"
if [ ! -x "$toolchain_bin/ld.lld" ] && ! command -v ld.lld >/dev/null 2>&1; then
  echo "fuzz: ld.lld not found in $toolchain_bin or on PATH; install the Debian package lld" >&2
  exit 2
fi

# Run-time exclusivity checks stay on in every build; the flag says so explicitly for the fuzzers,
# so an access violation found by a fuzzer always traps.
build_flags=(-c "$config" -Xswiftc -sanitize=fuzzer,address -Xswiftc -enforce-exclusivity=checked
  -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld)
echo "fuzz: building $package ($config, fuzzer+address)" >&2
# SwiftPM does not notice source files added to the path dependency (the root package): drop
# the cached build manifests so a new file is always compiled.
rm -f "$package"/.build/*.yaml
swift build --package-path "$package" "${build_flags[@]}" >&2
bin="$(swift build --package-path "$package" "${build_flags[@]}" --show-bin-path)"

# Seed corpora from the committed vectors, rebuilt on every run.
# Debian's python3 (its python3-h2 makes the HTTP/2 seeds), as the integration tests use.
"${PYTHON:-/usr/bin/python3}" - "$root" "$work" <<'PYTHON'
import base64, json, os, shutil, sys

root, work = sys.argv[1], sys.argv[2]

def fresh(harness):
    corpus = os.path.join(work, harness, "corpus")
    shutil.rmtree(corpus, ignore_errors=True)
    os.makedirs(corpus)
    return corpus

def write(corpus, name, data):
    with open(os.path.join(corpus, name), "wb") as f:
        f.write(data)

# HTTP: every request vector (README: one byte per character, Latin-1), behind a split byte.
corpus = fresh("FuzzHTTPRequestParser")
vectors = json.load(open(os.path.join(root, "Tests/AppNativeHTTPTests/Fixtures/vectors/http1/requests.json")))
for case in vectors["cases"]:
    raw = case["raw"].encode("latin-1")
    for split in (0x00, 0x80, 0xFF):
        write(corpus, "%s-%02x" % (case["id"], split), bytes([split]) + raw)
# W3C Trace Context: values alone (the harness reads the input as one traceparent and one
# tracestate value too) and in requests.
trace = {
    "traceparent": b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "traceparent-later": b"cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future",
    "tracestate": b"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE, a@b=x y,,",
    "request": b"GET / HTTP/1.1\r\nHost: a\r\ntraceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n"
               b"tracestate: rojo=1\r\ntracestate: congo=2\r\n\r\n",
    "request-two-parents": b"GET / HTTP/1.1\r\nHost: a\r\ntraceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n"
                           b"Traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00\r\n\r\n",
}
for name, raw in trace.items():
    write(corpus, "trace-" + name, bytes([0x80]) + raw)

# HTTP responses: split byte, method byte (0 GET, 1 HEAD, 2 CONNECT), then what an upstream
# sends. No committed response vectors exist, so the seeds are the framings the proxy handles.
corpus = fresh("FuzzHTTPResponseParser")
responses = {
    "length": b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
    "chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n",
    "no-content": b"HTTP/1.1 204 No Content\r\nX-A: b\r\n\r\n",
    "not-modified": b"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\nContent-Length: 10\r\n\r\n",
    "until-close": b"HTTP/1.0 200 OK\r\nConnection: close\r\n\r\nbody until close",
    "continue": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
    "upgrade": b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade, X-Hop\r\nX-Hop: 1\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\x81\x05hello",
    "keep-alive": b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nKeep-Alive: timeout=5\r\nConnection: keep-alive\r\n\r\nxHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
    "obs-text": b"HTTP/1.1 200 \xc3\xa9t\xe9\r\nX-Latin: caf\xe9\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n",
    "both-framings": b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "bad-chunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nx",
}
for name, raw in responses.items():
    for method in (0, 1, 2):
        for split in (0x00, 0x80, 0xFF):
            write(corpus, "%s-%d-%02x" % (name, method, split), bytes([split, method]) + raw)

# Authorization hook: two status bytes (big-endian), then the header lines libcurl would hand over.
corpus = fresh("FuzzAuthorizationHook")
hook = {
    "allow": (200, b"HTTP/1.1 200 OK\r\nX-Authz-User-Id: backend-42\r\nX-Authz-Roles: admin, reader\r\nX-Other: 1\r\n\r\n"),
    "allow-bad-names": (200, b"HTTP/1.1 200 OK\r\nX-Authz-a b: 1\r\nX-Authz-a\tb: 1\r\nX-Authz-(: 1\r\nX-Authz-/: 1\r\nX-Authz-\": 1\r\nX-Authz-\x7f: 1\r\nX-Authz-\xe9: 1\r\n\r\n"),
    "allow-bad-values": (204, b"HTTP/1.1 204 No Content\r\nX-Authz-A: a\rb\r\nX-Authz-B: \x00\r\nX-Authz-C: caf\xe9\r\n  folded\r\n\r\n"),
    "blank-fold": (200, b"HTTP/1.1 200 OK\r\nX-Authz-User-Id: 1\r\n \r\nX-Authz-Empty:\r\n\tb\r\n\r\n"),
    "redirected": (200, b"HTTP/1.1 302 Found\r\nX-Authz-Old: 1\r\n\r\nHTTP/1.1 200 OK\r\nx-authz-new:2\r\n\r\n"),
    "deny": (403, b"HTTP/1.1 403 Forbidden\r\nX-Authz-User-Id: x\r\n\r\n"),
    "error": (500, b"HTTP/1.1 500 Internal Server Error\r\n\r\n"),
}
for name, (status, lines) in hook.items():
    write(corpus, name, status.to_bytes(2, "big") + lines)

# JWKS: every JWK in the committed JOSE and JWT vectors, as one-key documents and all together.
corpus = fresh("FuzzJWKS")
jwks = []
def collect_jwks(value):
    if isinstance(value, dict):
        if "kty" in value:
            jwks.append(value)
        for item in value.values():
            collect_jwks(item)
    elif isinstance(value, list):
        for item in value:
            collect_jwks(item)
for path in ("Tests/AppNativeAuthTests/Fixtures/vectors/jwt-attacks/jwt-attack-cases.json",
             "Tests/AppNativeAuthTests/Fixtures/vectors/jose/rfc7515-rfc7520-jws.json"):
    collect_jwks(json.load(open(os.path.join(root, path))))
publics = []
for index, jwk in enumerate(jwks):
    public = {k: v for k, v in jwk.items() if k not in ("d", "p", "q", "dp", "dq", "qi", "k", "oth")}
    public.setdefault("kid", "kid-%d" % index)
    publics.append(public)
    write(corpus, "jwk-%d" % index, json.dumps({"keys": [public]}).encode())
write(corpus, "all", json.dumps({"keys": publics}).encode())
write(corpus, "empty", b'{"keys":[]}')

# Multipart: split byte, the case's Content-Type, LF, its body (Latin-1, as the README says).
corpus = fresh("FuzzMultipartParser")
vectors = json.load(open(os.path.join(root, "Tests/AppNativeHTTPTests/Fixtures/vectors/multipart/cases.json")))
for case in vectors["cases"]:
    data = case["contentType"].encode("latin-1") + b"\n" + case["body"].encode("latin-1")
    for split in (0x00, 0x80, 0xFF):
        write(corpus, "%s-%02x" % (case["id"], split), bytes([split]) + data)

# JSON: the JSONTestSuite files as they are.
corpus = fresh("FuzzJSONParser")
base = os.path.join(root, "Tests/AppNativeJSONTests/Fixtures/vectors/json")
for folder in ("test_parsing", "test_transform"):
    directory = os.path.join(base, folder)
    for name in sorted(os.listdir(directory)):
        shutil.copyfile(os.path.join(directory, name), os.path.join(corpus, folder + "-" + name))

# JWT: mode 0 = compact token; mode 1 = header JSON, 0x00, payload JSON (signed by the harness).
corpus = fresh("FuzzJWT")
def b64decode(segment):
    try:
        return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except Exception:
        return None
tokens = []
attacks = json.load(open(os.path.join(root, "Tests/AppNativeAuthTests/Fixtures/vectors/jwt-attacks/jwt-attack-cases.json")))
tokens += [(c["id"], c["token"]) for c in attacks["cases"] if isinstance(c.get("token"), str)]
jose = json.load(open(os.path.join(root, "Tests/AppNativeAuthTests/Fixtures/vectors/jose/rfc7515-rfc7520-jws.json")))
for index, case in enumerate(jose.get("cases", [])):
    for key in ("compact", "token", "jws"):
        if isinstance(case.get(key), str) and case[key].count(".") == 2:
            tokens.append(("jose-%d" % index, case[key]))
for name, token in tokens:
    encoded = token.encode("utf-8", "surrogateescape")
    write(corpus, "token-" + name, b"\x00" + encoded)
    parts = token.split(".")
    if len(parts) == 3:
        header, payload = b64decode(parts[0]), b64decode(parts[1])
        if header is not None and payload is not None:
            write(corpus, "signed-" + name, b"\x01" + header + b"\x00" + payload)
now = attacks["evaluationTime"]
valid = {"iss": "https://issuer.test", "aud": "api://fuzz", "sub": "subject", "iat": now, "nbf": now, "exp": now + 3600}
write(corpus, "signed-valid", b"\x01" + b'{"alg":"HS256","typ":"JWT"}' + b"\x00" + json.dumps(valid).encode())

# Models: selector byte (the index into ModelsHarness.models), then a JSON body. Seeds are the
# contract fixtures plus one valid body per request model and native surface.
corpus = fresh("FuzzModels")
fixtures = os.path.join(root, "Tests/AppNativeModelsTests/Fixtures")
widgets = json.load(open(os.path.join(fixtures, "widgets.json")))
state = json.load(open(os.path.join(fixtures, "live-activity-state.json")))
def seed(name, selector, value):
    write(corpus, name, bytes([selector]) + json.dumps(value, ensure_ascii=False).encode())
for widget in widgets:
    seed("widget-" + widget["id"], 7, widget)
seed("feed", 8, {"schema": 1, "widgets": widgets})
seed("feed-lenient", 16, widgets + [{"id": "bad", "kind": "stats", "data": {"items": []}}])
seed("state", 12, dict(state, timerEnd="2026-09-29T08:30:00+02:00"))
seed("device", 0, {"device_id": "d", "push_token": None, "platform": "ios", "user_email": "a@b.c"})
seed("location", 1, {"device_id": "d", "latitude": 47.3, "longitude": 8.5, "accuracy": 5, "recorded_at": "2026-09-24T08:00:00.5+02:00"})
seed("notification", 2, {"device_id": "d", "action": "acknowledge", "data": {"k": [1]}})
seed("widget-action", 3, {"device_id": "d", "widget_id": "w", "action_id": "a", "item_id": "r", "values": {"n": 1.5}, "source": "homeScreen"})
seed("widget-options", 4, {"device_id": "d", "form_id": "f", "field_id": "x", "query": "q", "context": {}})
seed("decision", 5, {"device_id": "d", "approval_id": "a", "decision": "reject", "comment": "no"})
seed("live-token", 6, {"device_id": "d", "event": "push_to_start_token", "push_token": "t"})
seed("approvals", 9, {"approvals": [{"id": "a", "title": "T", "urgent": True, "details": [{"label": "l", "value": "v"}], "dueAt": 1790519400}]})
seed("approvals-lenient", 17, {"approvals": [{"id": "a", "title": "T"}, {"id": "", "title": "x"}]})
seed("form", 10, {"id": "f", "tint": "#aabbcc", "pages": [{"fields": [{"id": "a", "type": "select", "options": [{"value": "x"}]}, {"id": "r", "type": "repeat", "max": 3, "fields": [{"id": "i", "type": "stepper", "step": 2}]}]}], "values": {"r": [{"i": 1}]}, "submit": {"wait": True}})
seed("content", 11, {"blocks": [{"type": "card", "blocks": [{"type": "heading", "text": "h"}, {"type": "row", "blocks": [{"type": "divider"}, {"type": "image", "data": "data:image/png;base64,AAAA"}]}]}, {"type": "table", "columns": [{"key": "k", "label": "K"}], "rows": [{"k": 1}]}, {"type": "fields", "fields": [{"id": "s", "type": "select", "remote": True}]}], "actions": [{"id": "a", "label": "A", "then": [{"showContent": {"blocks": [{"type": "text", "markdown": "m"}]}}, {"openUrl": "tel:1"}, {"close": True}]}]})
seed("attributes", 13, {"webAppID": "w", "activityID": "a", "webAppName": "n"})
seed("file-ref", 14, {"name": "a.jpg", "mime": "image/jpeg", "size": 10, "ref": "r"})
seed("action-data", 15, widgets[6]["data"])
seed("posted-refs", 18, ["r1", {"name": "a", "mime": "m", "size": 0, "ref": "r2"}])
seed("widget-action-result", 19, {"ok": False, "message": "m", "style": "info", "widget": widgets[0], "openPath": "/x"})
seed("decision-result", 20, {"approvals": [{"id": "a", "title": "T"}]})
seed("options-result", 21, [{"value": "a", "label": "A", "subtitle": "s"}])

# HTTP/2: mode byte (low bit 0: the harness sends the preface and SETTINGS first; 1: raw), split
# byte, then frames a client sends (hpack and hyperframe: Debian's python3-h2). The frames the
# adversarial tests play (Tests/Peers/h2_attacks.py, h2_adversary.py) in small numbers.
corpus = fresh("FuzzHTTP2Connection")
try:
    import hpack
    from hyperframe.frame import (ContinuationFrame, DataFrame, GoAwayFrame, HeadersFrame, PingFrame, PriorityFrame,
                                  RstStreamFrame, SettingsFrame, WindowUpdateFrame)
except ImportError:
    sys.exit("fuzz: the HTTP/2 seeds need hpack and hyperframe (Debian python3-h2; scripts/install-deps.sh)")
def frame(kind, stream, data=b"", flags=()):
    f = kind(stream)
    if data:
        f.data = data
    for flag in flags:
        f.flags.add(flag)
    return f.serialize()
def request(path="/a", method="GET", extra=()):
    return hpack.Encoder().encode([(":method", method), (":scheme", "https"), (":path", path), (":authority", "a")] + list(extra))
preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + SettingsFrame(0).serialize()
sequences = {
    "get": frame(HeadersFrame, 1, request(), ["END_HEADERS", "END_STREAM"]),
    "post": frame(HeadersFrame, 1, request("/p", "POST", [("content-length", "5")]), ["END_HEADERS"])
            + frame(DataFrame, 1, b"hello", ["END_STREAM"]),
    "trailers": frame(HeadersFrame, 1, request("/t", "POST"), ["END_HEADERS"]) + frame(DataFrame, 1, b"x")
                + frame(HeadersFrame, 1, hpack.Encoder().encode([("x-t", "1")]), ["END_HEADERS", "END_STREAM"]),
    "continuation": frame(HeadersFrame, 1, request()[:5]) + frame(ContinuationFrame, 1, request()[5:], ["END_HEADERS"]),
    "cookies": frame(HeadersFrame, 1, request("/c", extra=[("cookie", "a=1"), ("cookie", "b=2"), ("te", "trailers")]),
                     ["END_HEADERS", "END_STREAM"]),
    "two-streams": frame(HeadersFrame, 1, request("/1"), ["END_HEADERS", "END_STREAM"])
                   + frame(HeadersFrame, 3, request("/3"), ["END_HEADERS", "END_STREAM"]) + RstStreamFrame(3, error_code=8).serialize(),
    "control": PingFrame(0, opaque_data=b"12345678").serialize() + WindowUpdateFrame(0, window_increment=1000).serialize()
               + PriorityFrame(1, depends_on=0, stream_weight=16).serialize() + SettingsFrame(0, settings={4: 1 << 20}).serialize()
               + GoAwayFrame(0, last_stream_id=0, error_code=0).serialize(),
    "malformed": frame(HeadersFrame, 1, request("/m", extra=[("X-Upper", "1"), ("connection", "close")]), ["END_HEADERS", "END_STREAM"])
                 + frame(HeadersFrame, 3, hpack.Encoder().encode([(":path", "/x")]), ["END_HEADERS", "END_STREAM"]),
    "connect": frame(HeadersFrame, 1, hpack.Encoder().encode([(":method", "CONNECT"), (":protocol", "websocket"), (":scheme", "https"),
                                                              (":path", "/ws"), (":authority", "a")]), ["END_HEADERS"]),
}
for name, frames in sequences.items():
    for split in (0x00, 0x80, 0xFF):
        write(corpus, "%s-%02x" % (name, split), bytes([0, split]) + frames)
    write(corpus, "%s-raw" % name, bytes([1, 0x80]) + preface + frames)
write(corpus, "preface-only-raw", bytes([1, 0x40]) + preface)
PYTHON

# Largest input per harness: past every limit the harness configures (HTTP 1 KiB header
# section, multipart 4 KiB file, JWT 16 KiB token, a JWKS document with several RSA keys) without
# spending the time budget on huge inputs.
max_len() {
  case "$1" in
    FuzzJWT | FuzzJWKS) echo 20000 ;;
    *) echo 8192 ;;
  esac
}

failed=()
summary=()
for harness in "${harnesses[@]}"; do
  dir="$work/$harness"
  mkdir -p "$dir/artifacts"
  log="$dir/fuzz.log"
  seeds=$(find "$dir/corpus" -type f | wc -l)
  echo "fuzz: $harness for ${seconds}s ($seeds seeds)" >&2
  status=0
  SWIFT_BACKTRACE=enable=no "$bin/$harness" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$harness")" \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "$dir/corpus" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  if [ "$status" -ne 0 ]; then
    failed+=("$harness")
    echo "fuzz: $harness FAILED (exit $status); log $log, artifacts $dir/artifacts/" >&2
    grep -E -A12 '^==[0-9]+==ERROR|Fatal error|Precondition failed|deadly signal|Test unit written' "$log" | head -60 >&2 || tail -40 "$log" >&2
  fi
  summary+=("$(printf '%-24s %-7s runs %-10s exec/s %-8s %s' "$harness" "$([ "$status" -eq 0 ] && echo ok || echo FAILED)" "${runs:-?}" "${speed:-?}" "$coverage")")
done

echo "fuzz: summary (${seconds}s per harness)"
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failing harnesses: ${failed[*]}" >&2
  exit 1
fi
