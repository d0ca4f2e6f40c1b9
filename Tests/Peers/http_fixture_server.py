#!/usr/bin/env python3
"""HTTP(S) fixture peer for the AppNativeClient tests (Python standard library only).

Listens on 127.0.0.1, port 0 (the kernel picks), prints `READY <port>` on stdout once
listening, then serves until killed. It also exits by itself when its standard input reaches
end of file (the test process that started it is gone) or after --lifetime seconds, so a
crashed test run never leaves it behind.

    http_fixture_server.py [--tls CERT KEY] [--lifetime SECONDS]

Routes (any method):
    /json            200, a small JSON object
    /big             200, 2 MiB body with Content-Length
    /big-unsized     200, 2 MiB body without Content-Length (close-delimited)
    /big-headers     200, 64 header fields of 1 KiB each
    /redirect        302 to /json
    /slow            sleeps 10 s, then 200
    /status/<n>      status n, small JSON body
    /echo-headers    200, JSON {"method": ..., "headers": {lower-case name: value}}
    /echo            200, JSON {"method", "headers", "body_hex", "body_length"}
Every response carries `X-Peer-Port` (the client's source port) so tests can see connection
reuse. A request in absolute form (`GET http://host:port/path`, what a client sends to a
proxy) is served as the path and marked with `X-Fixture-Proxied: 1`.
"""

import argparse
import json
import os
import signal
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

JSON_BODY = b'{"keys":[],"ok":true}'
BIG_BODY_BYTES = 2 * 1024 * 1024
CHUNK = 64 * 1024
SLOW_SECONDS = 10


class FixtureServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # Room for a burst of concurrent connects (the default backlog of 5 drops SYNs).
    request_queue_size = 128
    tls_context = None

    def handle_error(self, request, client_address):
        # Clients that abort (size caps, timeouts, failed TLS verification) are the point of
        # several tests; their broken pipes are not worth a traceback.
        pass


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "AppNativeFixture/1"
    sys_version = ""
    timeout = 30

    def setup(self):
        context = self.server.tls_context
        if context is not None:
            # Handshake on this connection's own thread, so a client that fails verification
            # never blocks the accept loop.
            self.request = context.wrap_socket(self.request, server_side=True)
        super().setup()

    def log_message(self, format, *args):
        pass

    def handle_any(self):
        path = self.path
        proxied = False
        if path.startswith("http://") or path.startswith("https://"):
            parts = urllib.parse.urlsplit(path)
            path = parts.path + ("?" + parts.query if parts.query else "")
            proxied = True
        self.extra_headers = [("X-Fixture-Proxied", "1")] if proxied else []
        route = urllib.parse.urlsplit(path).path
        body = self.read_body()
        try:
            if route == "/json":
                self.reply(200, JSON_BODY)
            elif route == "/big":
                self.reply_big(sized=True)
            elif route == "/big-unsized":
                self.reply_big(sized=False)
            elif route == "/big-headers":
                filler = "f" * 1024
                headers = [("X-Filler-%d" % index, filler) for index in range(64)]
                self.reply(200, JSON_BODY, headers=headers)
            elif route == "/latin1-header":
                # http.server sends header values as ISO-8859-1: these are the bytes E9 and FF.
                self.reply(200, JSON_BODY, headers=[("X-Latin1", "caf\u00e9 \u00ff"), ("X-Ascii", "plain")])
            elif route == "/redirect":
                self.reply(302, b"redirecting", content_type="text/plain", headers=[("Location", "/json")])
            elif route == "/slow":
                time.sleep(SLOW_SECONDS)
                self.reply(200, JSON_BODY)
            elif route.startswith("/status/"):
                status = int(route[len("/status/"):])
                self.reply(status, json.dumps({"status": status}).encode())
            elif route == "/echo-headers":
                self.reply(200, json.dumps({"method": self.command, "headers": self.header_map()}).encode())
            elif route == "/echo":
                self.reply(200, json.dumps({
                    "method": self.command,
                    "headers": self.header_map(),
                    "body_hex": body.hex(),
                    "body_length": len(body),
                }).encode())
            else:
                self.reply(404, b'{"error":"no such route"}')
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = handle_any

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def header_map(self):
        merged = {}
        for name, value in self.headers.items():
            key = name.lower()
            merged[key] = merged[key] + ", " + value if key in merged else value
        return merged

    def start(self, status, content_type, headers, length):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.send_header("X-Peer-Port", str(self.client_address[1]))
        for name, value in list(headers) + self.extra_headers:
            self.send_header(name, value)
        self.end_headers()

    def reply(self, status, body, content_type="application/json", headers=()):
        self.start(status, content_type, headers, len(body))
        if self.command != "HEAD":
            self.wfile.write(body)

    def reply_big(self, sized):
        if not sized:
            # No length and no chunking: the body ends when the connection closes.
            self.close_connection = True
        self.start(200, "application/octet-stream",
                   [] if sized else [("Connection", "close")], BIG_BODY_BYTES if sized else None)
        if self.command == "HEAD":
            return
        remaining = BIG_BODY_BYTES
        block = b"a" * CHUNK
        while remaining > 0:
            self.wfile.write(block[:min(CHUNK, remaining)])
            remaining -= CHUNK


def exit_when_orphaned():
    # The test keeps our stdin open; end of file means it has gone away.
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        os._exit(0)


def main():
    parser = argparse.ArgumentParser(description="HTTP(S) fixture peer for AppNativeClient tests")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS with this certificate and key")
    parser.add_argument("--lifetime", type=float, default=300.0, help="exit after this many seconds")
    arguments = parser.parse_args()
    # A parent that spawned us from a thread with blocked signals must still be able to stop
    # us with SIGTERM.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())

    server = FixtureServer(("127.0.0.1", 0), Handler)
    if arguments.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(arguments.tls[0], arguments.tls[1])
        context.set_alpn_protocols(["http/1.1"])
        server.tls_context = context

    threading.Thread(target=exit_when_orphaned, daemon=True).start()
    threading.Timer(arguments.lifetime, lambda: os._exit(0)).start()
    print("READY %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
