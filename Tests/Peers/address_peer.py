#!/usr/bin/env python3
"""An upstream bound to one loopback address, for the name re-resolution tests (standard library).

Usage: address_peer.py --host 127.0.0.2 [--port N]
Listens on host:port (port 0 picks one; SO_REUSEADDR, so a restarted peer binds the same port at
once) and prints `READY <port>`. Every request is answered `200` with a JSON body naming the
address that served it and what arrived:
  {"served_by": "127.0.0.2", "path": "/x", "host": "<Host>", "x_forwarded_host": "<X-Forwarded-Host>",
   "headers": {<every field, lower-case names>}}
and `GET /__connections` answers {"served_by": ..., "open": N} (connections open now, this one
included). HTTP/1.1 keep-alive, one thread per connection. Exits when stdin closes.
"""
import argparse
import json
import socket
import sys
import threading

lock = threading.Lock()
open_connections = 0


def serve(connection, host):
    global open_connections
    with lock:
        open_connections += 1
    buffer = b""
    try:
        while True:
            while b"\r\n\r\n" not in buffer:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            head, _, buffer = buffer.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0") or "0")
            while len(buffer) < length:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                buffer += chunk
            buffer = buffer[length:]
            if target == "/__connections":
                with lock:
                    answer = {"served_by": host, "open": open_connections}
            else:
                answer = {
                    "served_by": host,
                    "path": target,
                    "host": headers.get("host"),
                    "x_forwarded_host": headers.get("x-forwarded-host"),
                    "headers": headers,
                }
            body = json.dumps(answer).encode()
            reply = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
            connection.sendall(reply + (b"" if method == "HEAD" else body))
    except OSError:
        return
    finally:
        with lock:
            open_connections -= 1
        connection.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, default=0)
    arguments = parser.parse_args()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((arguments.host, arguments.port))
    listener.listen(128)

    def accept():
        while True:
            connection, _ = listener.accept()
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=serve, args=(connection, arguments.host), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    print(f"READY {listener.getsockname()[1]}", flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
