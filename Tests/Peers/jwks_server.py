#!/usr/bin/env python3
"""A JWKS endpoint for tests (stdlib only), over HTTPS with a test certificate or plain HTTP.

Routes: /keys (the document; 500 for the first `--fail-first` requests, and with
`--until-released` also until /release was requested), /redirect (302 to /keys), /slow (answers
after 30 s), /status/<n>, /big (2 MB). Counts requests per path at /stats. Prints `READY <port>`.
"""
import argparse
import http.server
import json
import ssl
import sys
import threading
import time

counts = {}
lock = threading.Lock()


def make_handler(document: bytes, fail_first: int, until_released: bool):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body, content_type="application/json", extra=None):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            with lock:
                counts[self.path] = counts.get(self.path, 0) + 1
                seen = counts[self.path]
            if self.path == "/keys":
                with lock:
                    failing = seen <= fail_first or (until_released and "/release" not in counts)
                if failing:
                    self.send(500, b"{}")
                else:
                    self.send(200, document)
            elif self.path == "/redirect":
                self.send(302, b"", extra={"Location": "/keys"})
            elif self.path == "/slow":
                time.sleep(30)
                self.send(200, document)
            elif self.path == "/big":
                self.send(200, b"{" + b" " * 2_000_000 + b"}")
            elif self.path.startswith("/status/"):
                self.send(int(self.path.split("/")[-1]), b"{}")
            elif self.path == "/release":
                self.send(200, b"{}")
            elif self.path == "/stats":
                with lock:
                    self.send(200, json.dumps(counts).encode())
            else:
                self.send(404, b"{}")

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--document", required=True)
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--fail-first", type=int, default=0, help="answer /keys with 500 this many times first")
    parser.add_argument("--until-released", action="store_true", help="and keep failing until /release is requested")
    args = parser.parse_args()
    with open(args.document, "rb") as handle:
        document = handle.read()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(document, args.fail_first, args.until_released))
    server.daemon_threads = True
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls[0], args.tls[1])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"READY {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
