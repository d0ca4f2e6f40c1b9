#!/usr/bin/env python3
"""An upstream for the gateway's proxy tests (Debian python3, python3-websockets).

Prints `READY <http-port> <ws-port>` once both listeners are up. Exits when stdin closes.

HTTP routes (any method):
  /echo...        200 JSON {method, target, version, headers: [[name, value]...], body_sha256, body_length}
  /sse            text/event-stream: event 1 at once, then waits for /sse-release, then event 2, end
  /sse-release    releases the pending /sse stream
  /sse-short      text/event-stream: one event and the end (Content-Length)
  /slow?s=N       answers after N seconds
  /early          answers at once (a chunked head and a first chunk), then reads the request body
                  and ends with its length: a response that starts before its request body ends
  /reset          sends a head and part of a body, then resets the connection
  /big?n=N        N bytes of body with Content-Length
  /status/N       status N with a JSON body
  /count          how many TCP connections this peer accepted, and /slow requests it received, so far
  /test-jwks      the JWKS document given with --jwks FILE (a stand-in for Entra's key endpoint)
  /authz/allow    an authorization hook that allows (X-Authz-User-Id: backend-42; echoes the user header)
  /authz/bad-names  one that allows with X-Authz-* names that are not tokens (space, tab, "(", "/",
                  DQUOTE, DEL, non-ASCII) next to a valid X-Authz-User-Id: backend-42
  /authz/deny     one that denies (403);  /authz/error: 500;  /authz/calls: how many hook calls so far
The WebSocket listener echoes every message.
"""
import asyncio
import hashlib
import json
import os
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

release = threading.Event()
JWKS = None
accepted = [0]
slow_started = [0]
authz_calls = [0]
lock = threading.Lock()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512

    def get_request(self):
        pair = super().get_request()
        with lock:
            accepted[0] += 1
        return pair

    def handle_error(self, request, client_address):
        pass


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "UpstreamPeer/1"
    sys_version = ""

    def log_message(self, *args):
        pass

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length", "0") or "0")
        digest = hashlib.sha256()
        remaining = length
        while remaining:
            chunk = self.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                break
            digest.update(chunk)
            remaining -= len(chunk)
        self._digest = digest.hexdigest()
        self._length = length - remaining
        return None

    def send(self, status, payload, content_type="application/json", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def handle_any(self):
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if url.path.startswith("/echo"):
            self._digest = None
            data = self.body()
            if data is not None:
                self._digest = hashlib.sha256(data).hexdigest()
                self._length = len(data)
            payload = json.dumps({
                "method": self.command, "target": self.path, "version": self.request_version,
                "headers": [[k, v] for k, v in self.headers.items()],
                "body_sha256": self._digest, "body_length": self._length,
            }).encode()
            self.send(200, payload)
        elif url.path == "/sse":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()

            def chunk(data):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()

            chunk(b"data: first\n\n")
            release.wait(30)
            release.clear()
            chunk(b"data: second\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        elif url.path == "/sse-short":
            # One event and the end: a short-lived event stream (the credential outlives it).
            # Head and body in one write: two small writes meet Nagle and the gateway's delayed
            # ACK, 40 ms per stream, and the memory test opens 22,000 of them.
            body = b"data: one\n\n"
            self.wfile.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        elif url.path == "/early":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            first = b"started\n"
            self.wfile.write(b"%x\r\n%s\r\n" % (len(first), first))
            self.wfile.flush()
            data = self.body()
            last = b"read %d\n" % (len(data) if data is not None else self._length)
            self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(last), last))
            self.wfile.flush()
        elif url.path == "/sse-release":
            release.set()
            self.send(200, b"{}")
        elif url.path == "/slow":
            with lock:
                slow_started[0] += 1
            time.sleep(float(query.get("s", ["5"])[0]))
            self.send(200, b'{"slow":true}')
        elif url.path == "/reset":
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(b"x" * 1000)
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
        elif url.path == "/big":
            size = int(query.get("n", ["1048576"])[0])
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            block = b"b" * 65536
            sent = 0
            while sent < size:
                part = block[: min(65536, size - sent)]
                self.wfile.write(part)
                sent += len(part)
        elif url.path.startswith("/status/"):
            self.send(int(url.path.split("/")[-1]), b'{"status":true}')
        elif url.path == "/test-jwks" and JWKS is not None:
            self.send(200, JWKS)
        elif url.path.startswith("/authz/"):
            if url.path == "/authz/calls":
                self.send(200, json.dumps({"calls": authz_calls[0]}).encode())
                return
            with lock:
                authz_calls[0] += 1
            if url.path == "/authz/allow":
                self.send(200, b"{}", extra=[("X-Authz-User-Id", "backend-42"),
                                            ("X-Authz-Seen-User", self.headers.get("X-AppNative-User-Id", "")),
                                            ("X-Not-Passed", "1")])
            elif url.path == "/authz/bad-names":
                bad = ["X-Authz-a b", "X-Authz-a\tb", "X-Authz-(", "X-Authz-/", 'X-Authz-"', "X-Authz-\x7f", "X-Authz-\xe9"]
                self.send(200, b"{}", extra=[(name, "1") for name in bad] + [("X-Authz-User-Id", "backend-42")])
            elif url.path == "/authz/deny":
                self.send(403, b'{"detail":"no"}')
            else:
                self.send(500, b"{}")
        elif url.path == "/count":
            with lock:
                self.send(200, json.dumps({"accepted": accepted[0], "slow": slow_started[0]}).encode())
        else:
            self.send(404, b'{"detail":"Not Found"}')

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = handle_any


async def websocket_main(ready):
    import websockets

    async def echo(connection, path=None):
        async for message in connection:
            await connection.send(message)

    server = await websockets.serve(echo, "127.0.0.1", 0)
    ready.append(server.sockets[0].getsockname()[1])
    await asyncio.Future()


def main():
    global JWKS
    if "--jwks" in sys.argv:
        with open(sys.argv[sys.argv.index("--jwks") + 1], "rb") as handle:
            JWKS = handle.read()
    http = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    ws_port = []
    loop = asyncio.new_event_loop()
    threading.Thread(target=lambda: loop.run_until_complete(websocket_main(ws_port)), daemon=True).start()
    while not ws_port:
        time.sleep(0.01)
    print(f"READY {http.server_address[1]} {ws_port[0]}", flush=True)
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
