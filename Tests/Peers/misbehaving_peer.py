#!/usr/bin/env python3
"""A misbehaving HTTP peer for the gateway's robustness tests (Debian python3, standard library).

Why: the well-behaved peers (upstream_peer.py, echo_peer.py, jwks_server.py) are built on
http.server or a strict parser and cannot send broken bytes. This one writes raw bytes with
asyncio streams, so one process can play a faulty upstream, a faulty authorization hook
(AUTHORIZE_URL) and a faulty key server (ENTRA_JWKS_URL) at once, each fault chosen per request.

Prints `READY <port>` once it listens on 127.0.0.1 (port 0: no free-port race). Exits when stdin
closes.

Choosing a fault, first match wins:
  1. the path `/fault/<name>[/anything][?query]`;
  2. the request header `X-Misbehave: <name>`;
  3. on a path starting with `/authz` (the hook's AUTHORIZE_URL) only: any request header value
     containing `fault+<name>@` (the hook is called with the identity headers only, so a test
     mints a token whose email is `fault+<name>@example.com`; the same user's upstream requests,
     on other paths, are echoed).
With no fault the request is answered `200` with a JSON echo of its head (see below), keep-alive.

Upstream faults:
  continue-then-200   100 Continue, then 200          early-hints   103 (Link), then 200
  many-1xx            100, 102, 103 x3, then 200      1xx-then-hang 103, then nothing (held open)
  stray-101           101 Switching Protocols to whatever was asked; then records every byte that
                      still arrives on that connection (`after_101` in /__received)
  chunked-bad-size    chunked 200 whose first size line is not hex
  chunked-break       chunked 200: 11 body bytes, then a bad size line, then close
  status-600, status-999, status-99, status-abc      a status line with that code
  bad-name-space, bad-name-tab, bad-name-nonascii, bad-name-paren, bad-name-slash,
  bad-name-quote, bad-name-del, bad-name-empty        200 with one such response field name
  close-before-response   reads the request, closes without a byte
  close-mid-head          half a status line and field, then close
  short-body              Content-Length: 100, 10 bytes, then close
  huge-head               200 whose header section is ~1 MiB (2,000 fields of 500 bytes)
  slow-head               waits `?s=N` seconds (default --slow-seconds) before a normal 200
Hook faults (answers to the gateway's hook call; the good one is `authz-ok`):
  authz-ok                200, X-Authz-User: hook-user
  authz-bad-name-space, -tab, -nonascii, -paren, -slash, -quote, -del
                          200, X-Authz-User: hook-user, plus `X-Authz-a b: 1` and the like
  authz-user-cr, authz-user-lf, authz-user-nul, authz-user-ctl, authz-user-del
                          200 with an X-Authz-User value holding a bare CR, an obs-fold
                          (CRLF + space), NUL, other control bytes, DEL
  authz-slow              answers after `?s=N` seconds (default --slow-seconds)
  authz-huge-headers      200 with 2,000 X-Authz-Pad-N fields of 200 bytes
  authz-huge-body         200 with a 4 MiB body
  authz-bad-status        a malformed status line      authz-close-early  closes, no byte
  authz-500               500
Key-server faults (ENTRA_JWKS_URL):
  jwks-ok                 the key set of --jwks FILE
  jwks-fail-first         500 for the first N fetches (--jwks-failures N or env
                          MISBEHAVING_JWKS_FAILURES, default 3), then the key set
  jwks-hang               never answers          jwks-huge   a 5 MB JSON document
  jwks-malformed          truncated JSON          jwks-wrong-types   {"keys": [{"kty": 7, ...}]}
  jwks-keys-not-array     {"keys": "abc"}         jwks-wrong-content  200 text/html page

Control (never recorded, never faulted):
  GET  /__received   {"requests": [head...], "after_101": [latin-1 text...], "counts": {path: n},
                      "connections": n}; a head is {method, target, version, headers:
                      [[name, value]...], trailers: [[name, value]...] | null, body_length,
                      connection}; names and values Latin-1; the last 500 requests are kept
  POST /__reset      forgets everything recorded (not the jwks-fail-first counter)
  GET  /__counts     {path-without-query: requests}
"""
import argparse
import asyncio
import json
import os
import sys
import threading
from urllib.parse import parse_qs, urlsplit

KEPT = 500
MAX_HEAD = 1 << 20

state = {"requests": [], "after_101": [], "counts": {}, "connections": 0}
jwks_fetches = [0]
options = None
jwks_document = b'{"keys":[]}'


def latin1(data):
    return data.decode("latin-1")


class Malformed(Exception):
    pass


async def read_head(reader):
    """The request head up to its blank line, or None at a clean end of stream."""
    try:
        data = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as error:
        if error.partial.strip():
            raise Malformed("incomplete head")
        return None
    except asyncio.LimitOverrunError:
        raise Malformed("head too large")
    lines = data[:-4].split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3:
        raise Malformed("bad request line %r" % lines[0][:100])
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers.append([latin1(name), latin1(value.strip(b" \t"))])
    return {"method": latin1(parts[0]), "target": latin1(parts[1]), "version": latin1(parts[2]),
            "headers": headers, "trailers": None, "body_length": 0}


def header(head, name):
    for field in head["headers"]:
        if field[0].lower() == name:
            return field[1]
    return None


async def read_body(reader, head):
    encoding = (header(head, "transfer-encoding") or "").lower()
    if "chunked" in encoding:
        length = 0
        while True:
            line = await reader.readuntil(b"\r\n")
            size = int(line.split(b";")[0].strip(), 16)
            if size == 0:
                break
            await reader.readexactly(size + 2)
            length += size
        trailers = []
        while True:
            line = await reader.readuntil(b"\r\n")
            if line == b"\r\n":
                break
            name, _, value = line[:-2].partition(b":")
            trailers.append([latin1(name), latin1(value.strip(b" \t"))])
        head["trailers"] = trailers
        head["body_length"] = length
        return
    length = int(header(head, "content-length") or "0")
    if length:
        await reader.readexactly(length)
    head["body_length"] = length


def fault_of(head):
    path = urlsplit(head["target"]).path
    if path.startswith("/fault/"):
        return path[len("/fault/"):].split("/")[0]
    chosen = header(head, "x-misbehave")
    if chosen:
        return chosen.strip()
    if not path.startswith("/authz"):
        return None
    for _, value in head["headers"]:
        start = value.find("fault+")
        if start >= 0:
            end = value.find("@", start)
            if end > start:
                return value[start + len("fault+"):end]
    return None


def response(status_line, fields, body=b""):
    head = status_line + b"\r\n"
    for name, value in fields:
        head += name + b": " + value + b"\r\n"
    return head + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body


def echo(head):
    body = json.dumps({key: head[key] for key in ("method", "target", "version", "headers", "trailers", "body_length")}).encode()
    return response(b"HTTP/1.1 200 OK", [(b"Content-Type", b"application/json")], body)


OK_BODY = b'{"ok":true}'
OK = response(b"HTTP/1.1 200 OK", [(b"Content-Type", b"application/json")], OK_BODY)

BAD_NAMES = {
    "space": b"X-Bad Name", "tab": b"X-Bad\tName", "nonascii": "X-B\u00e4d".encode("utf-8"),
    "paren": b"X-Bad(Name", "slash": b"X-Bad/Name", "quote": b'X-Bad"Name', "del": b"X-Bad\x7fName",
    "empty": b"",
}
AUTHZ_BAD_NAMES = {
    "space": b"X-Authz-a b", "tab": b"X-Authz-a\tb", "nonascii": "X-Authz-\u00e4".encode("utf-8"),
    "paren": b"X-Authz-a(b", "slash": b"X-Authz-a/b", "quote": b'X-Authz-a"b', "del": b"X-Authz-a\x7fb",
}
AUTHZ_USER_VALUES = {
    "cr": b"hook\rX-Authz-Injected: 1", "lf": b"hook\r\n X-Authz-Injected: 1", "nul": b"hook\x00user",
    "ctl": b"hook\x01\x1b[31muser\x0b", "del": b"hook\x7fuser",
}
AUTHZ_OK_FIELDS = [(b"X-Authz-User", b"hook-user"), (b"X-Authz-Roles", b"reader")]


def jwks_body(name):
    if name == "jwks-huge":
        key = b'{"kty":"RSA","kid":"pad-%d","use":"sig","n":"' + b"A" * 4000 + b'","e":"AQAB"}'
        keys = b",".join(key.replace(b"%d", str(i).encode()) for i in range(1250))
        return 200, b"application/json", b'{"keys":[' + keys + b"]}"
    if name == "jwks-malformed":
        return 200, b"application/json", b'{"keys": [{"kty": "RSA", "kid": "x", "n": "AQAB'
    if name == "jwks-wrong-types":
        return 200, b"application/json", b'{"keys": [{"kty": 7, "kid": ["x"], "use": false, "n": {}, "e": null}]}'
    if name == "jwks-keys-not-array":
        return 200, b"application/json", b'{"keys": "abc"}'
    if name == "jwks-wrong-content":
        return 200, b"text/html", b"<!doctype html><html><body><h1>Sign in</h1></body></html>"
    return 200, b"application/json", jwks_document


async def hold(reader, seconds):
    """Waits up to `seconds` or until the peer closes, reading and dropping what arrives."""
    try:
        await asyncio.wait_for(reader.read(), seconds)
    except asyncio.TimeoutError:
        pass


async def play(name, head, reader, writer):
    """Writes the fault's bytes; returns whether the connection may carry another request."""
    query = parse_qs(urlsplit(head["target"]).query)
    seconds = float(query.get("s", [options.slow_seconds])[0])
    write = writer.write
    if name == "continue-then-200":
        write(b"HTTP/1.1 100 Continue\r\n\r\n" + OK)
    elif name == "early-hints":
        write(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n")
        await writer.drain()
        await asyncio.sleep(0.05)
        write(OK)
    elif name == "many-1xx":
        write(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n")
        for index in range(3):
            write(b"HTTP/1.1 103 Early Hints\r\nLink: </s%d.css>; rel=preload; as=style\r\n\r\n" % index)
        write(OK)
    elif name == "1xx-then-hang":
        write(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n")
        await writer.drain()
        await hold(reader, 120)
        return False
    elif name == "stray-101":
        write(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
        await writer.drain()
        received = bytearray()
        index = None
        try:
            while len(received) < MAX_HEAD:
                data = await asyncio.wait_for(reader.read(65536), 30)
                if not data:
                    break
                received += data
                if index is None:
                    index = len(state["after_101"])
                    state["after_101"].append("")
                if index < len(state["after_101"]):
                    state["after_101"][index] = latin1(bytes(received))
        except (asyncio.TimeoutError, ConnectionError):
            pass
        return False
    elif name == "chunked-bad-size":
        write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\nzz-not-hex\r\nhello\r\n0\r\n\r\n")
        await writer.drain()
        await hold(reader, 1)
        return False
    elif name == "chunked-break":
        write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n")
        await writer.drain()
        await asyncio.sleep(0.2)
        write(b"not-a-size\r\nmore\r\n")
        await writer.drain()
        return False
    elif name.startswith("status-"):
        write(response(b"HTTP/1.1 " + name[len("status-"):].encode() + b" Odd", [(b"Content-Type", b"text/plain")], b"odd"))
        await writer.drain()
        return False
    elif name.startswith("bad-name-"):
        write(response(b"HTTP/1.1 200 OK", [(b"Content-Type", b"text/plain"), (BAD_NAMES[name[len("bad-name-"):]], b"1")], b"ok"))
    elif name == "close-before-response":
        return False
    elif name == "close-mid-head":
        write(b"HTTP/1.1 200 OK\r\nContent-Ty")
        await writer.drain()
        return False
    elif name == "short-body":
        write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n0123456789")
        await writer.drain()
        return False
    elif name == "huge-head":
        fields = [(b"X-Pad-%d" % index, b"p" * 500) for index in range(2000)]
        write(response(b"HTTP/1.1 200 OK", fields, b"ok"))
    elif name == "slow-head":
        await asyncio.sleep(seconds)
        write(OK)
    elif name == "authz-ok":
        write(response(b"HTTP/1.1 200 OK", AUTHZ_OK_FIELDS))
    elif name.startswith("authz-bad-name-"):
        bad = AUTHZ_BAD_NAMES[name[len("authz-bad-name-"):]]
        write(response(b"HTTP/1.1 200 OK", AUTHZ_OK_FIELDS + [(bad, b"1")]))
    elif name.startswith("authz-user-"):
        value = AUTHZ_USER_VALUES[name[len("authz-user-"):]]
        write(response(b"HTTP/1.1 200 OK", [(b"X-Authz-User", value), (b"X-Authz-Roles", b"reader")]))
    elif name == "authz-slow":
        await asyncio.sleep(seconds)
        write(response(b"HTTP/1.1 200 OK", AUTHZ_OK_FIELDS))
    elif name == "authz-huge-headers":
        write(response(b"HTTP/1.1 200 OK", AUTHZ_OK_FIELDS + [(b"X-Authz-Pad-%d" % i, b"p" * 200) for i in range(2000)]))
    elif name == "authz-huge-body":
        write(response(b"HTTP/1.1 200 OK", AUTHZ_OK_FIELDS, b"x" * (4 << 20)))
    elif name == "authz-bad-status":
        write(b"HTTP/1.1 2OO Okay\r\nX-Authz-User: hook-user\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        return False
    elif name == "authz-close-early":
        return False
    elif name == "authz-500":
        write(response(b"HTTP/1.1 500 Internal Server Error", [(b"Content-Type", b"application/json")], b"{}"))
    elif name == "jwks-fail-first":
        jwks_fetches[0] += 1
        if jwks_fetches[0] <= options.jwks_failures:
            write(response(b"HTTP/1.1 500 Internal Server Error", [(b"Content-Type", b"application/json")], b"{}"))
        else:
            write(response(b"HTTP/1.1 200 OK", [(b"Content-Type", b"application/json")], jwks_document))
    elif name == "jwks-hang":
        await hold(reader, 120)
        return False
    elif name.startswith("jwks-"):
        status, content_type, body = jwks_body(name)
        write(response(b"HTTP/1.1 %d OK" % status, [(b"Content-Type", content_type)], body))
    else:
        write(response(b"HTTP/1.1 404 Not Found", [(b"Content-Type", b"text/plain")], b"unknown fault " + name.encode()))
    await writer.drain()
    return True


def record(head):
    requests = state["requests"]
    requests.append(head)
    del requests[:-KEPT]
    path = urlsplit(head["target"]).path
    state["counts"][path] = state["counts"].get(path, 0) + 1


def control(head):
    path = urlsplit(head["target"]).path
    if path == "/__received":
        return response(b"HTTP/1.1 200 OK", [(b"Content-Type", b"application/json")], json.dumps(state).encode())
    if path == "/__counts":
        return response(b"HTTP/1.1 200 OK", [(b"Content-Type", b"application/json")], json.dumps(state["counts"]).encode())
    if path == "/__reset":
        state.update(requests=[], after_101=[], counts={}, connections=0)
        return response(b"HTTP/1.1 204 No Content", [])
    return None


async def serve(reader, writer):
    state["connections"] += 1
    connection = state["connections"]
    try:
        while True:
            head = await read_head(reader)
            if head is None:
                break
            head["connection"] = connection
            answer = control(head)
            if answer is not None:
                writer.write(answer)
                await writer.drain()
                continue
            await read_body(reader, head)
            record(head)
            name = fault_of(head)
            if name is None:
                writer.write(echo(head))
                await writer.drain()
                continue
            if not await play(name, head, reader, writer):
                break
    except (Malformed, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


def main():
    global options, jwks_document
    parser = argparse.ArgumentParser(description="a misbehaving upstream, hook and key server")
    parser.add_argument("--jwks", help="the key set served by jwks-ok and jwks-fail-first")
    parser.add_argument("--jwks-failures", type=int, default=int(os.environ.get("MISBEHAVING_JWKS_FAILURES", "3")))
    parser.add_argument("--slow-seconds", type=float, default=6.0)
    options = parser.parse_args()
    if options.jwks:
        with open(options.jwks, "rb") as handle:
            jwks_document = handle.read()

    async def run():
        server = await asyncio.start_server(serve, "127.0.0.1", 0, limit=MAX_HEAD, backlog=512)
        print("READY %d" % server.sockets[0].getsockname()[1], flush=True)
        async with server:
            await server.serve_forever()

    def watch_stdin():
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    asyncio.run(run())


if __name__ == "__main__":
    sys.exit(main())
