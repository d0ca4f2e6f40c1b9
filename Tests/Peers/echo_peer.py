#!/usr/bin/env python3
"""A recording upstream for the gateway's wire-level tests (Debian python3, standard library only).

Prints `READY <http-port> <control-port>` once both listeners are up. Exits when stdin closes.

HTTP port (the gateway's upstream): every request, whatever its method and target, is answered
`200` with a JSON echo of what arrived (the head only for HEAD):
  {method, target, version, headers: [[name, value]...], trailers: [[name, value]...] | null,
   framing: "content-length" | "chunked" | "none", body, body_length, body_sha256}
Field names, values and the body are decoded as Latin-1 (one character per byte), so a test can
compare them byte for byte; `body` is cut at 64 KiB (`body_length` and `body_sha256` always cover
the whole body, hashed while it streams, so a 1 GiB upload never sits in memory).
The parser is strict about what a proxy must send: CRLF line ends, one framing field, chunked
sizes in hex. A request it cannot parse is answered 400 and recorded as an `error`, and the
connection is closed.

Control port (never recorded):
  GET  /log     {"bytes": N, "connections": N, "requests": [echo...], "errors": [text...],
                 "raw": "<first 1 MiB received, Latin-1>"} for everything since the last reset
  POST /reset   forgets everything recorded so far
"""
import hashlib
import json
import os
import socket
import sys
import threading

RAW_KEPT = 1 << 20
BODY_KEPT = 64 * 1024

lock = threading.Lock()
state = {"bytes": 0, "connections": 0, "requests": [], "errors": [], "raw": bytearray()}


def reset():
    with lock:
        state.update(bytes=0, connections=0, requests=[], errors=[], raw=bytearray())


class Closed(Exception):
    pass


class Reader:
    """Buffered reads from a socket; every byte received is recorded when `recording`.

    `buffer[pos:]` is unread; consumed bytes are dropped only when more are needed, so a large
    body costs one copy per byte, not one per chunk.
    """

    def __init__(self, sock, recording):
        self.sock = sock
        self.recording = recording
        self.buffer = bytearray()
        self.pos = 0

    def fill(self):
        if self.pos:
            del self.buffer[: self.pos]
            self.pos = 0
        data = self.sock.recv(1 << 20)
        if not data:
            raise Closed()
        if self.recording:
            with lock:
                state["bytes"] += len(data)
                room = RAW_KEPT - len(state["raw"])
                if room > 0:
                    state["raw"] += data[:room]
        self.buffer += data

    def line(self, limit=1 << 16):
        while True:
            end = self.buffer.find(b"\n", self.pos)
            if end >= 0:
                line = bytes(self.buffer[self.pos : end + 1])
                self.pos = end + 1
                if not line.endswith(b"\r\n") or b"\r" in line[:-2]:
                    raise ValueError("line not ended by CRLF, or bare CR: %r" % line[:80])
                return line[:-2]
            if len(self.buffer) - self.pos > limit:
                raise ValueError("line longer than %d bytes" % limit)
            self.fill()

    def chunks(self, count):
        """Yields `count` bytes as they arrive, without holding them all."""
        while count:
            if self.pos == len(self.buffer):
                self.fill()
            take = min(count, len(self.buffer) - self.pos)
            piece = bytes(self.buffer[self.pos : self.pos + take])
            self.pos += take
            count -= take
            yield piece


def read_fields(reader):
    fields = []
    while True:
        line = reader.line()
        if not line:
            return fields
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip() or b" " in name or b"\t" in name:
            raise ValueError("malformed field line %r" % line[:80])
        fields.append([name.decode("latin-1"), value.strip(b" \t").decode("latin-1")])


def read_request(reader):
    try:
        line = reader.line()
    except Closed:
        return None
    parts = line.split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
        raise ValueError("malformed request line %r" % line[:80])
    method, target, version = (part.decode("latin-1") for part in parts)
    headers = read_fields(reader)
    lengths = [v for n, v in headers if n.lower() == "content-length"]
    codings = [v for n, v in headers if n.lower() == "transfer-encoding"]
    if len(lengths) + len(codings) > 1:
        raise ValueError("more than one framing field: %r %r" % (lengths, codings))
    digest = hashlib.sha256()
    kept = bytearray()
    total = 0

    def take(piece):
        nonlocal total
        digest.update(piece)
        total += len(piece)
        if len(kept) < BODY_KEPT:
            kept.extend(piece[: BODY_KEPT - len(kept)])

    trailers = None
    framing = "none"
    if codings:
        if codings[0] != "chunked":
            raise ValueError("Transfer-Encoding %r" % codings[0])
        framing = "chunked"
        while True:
            size_line = reader.line()
            size_text = size_line.split(b";")[0]
            if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
                raise ValueError("chunk size line %r" % size_line[:80])
            size = int(size_text, 16)
            if size == 0:
                trailers = read_fields(reader)
                break
            for piece in reader.chunks(size):
                take(piece)
            if reader.line() != b"":
                raise ValueError("chunk data longer than its size")
    elif lengths:
        if not lengths[0].isdigit():
            raise ValueError("Content-Length %r" % lengths[0])
        framing = "content-length"
        for piece in reader.chunks(int(lengths[0])):
            take(piece)
    return {
        "method": method, "target": target, "version": version, "headers": headers,
        "trailers": trailers, "framing": framing, "body": kept.decode("latin-1"),
        "body_length": total, "body_sha256": digest.hexdigest(),
    }


def respond(sock, status, payload, close=False, head_only=False):
    head = "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n" % (
        status, "OK" if status == 200 else "Bad Request", len(payload), "Connection: close\r\n" if close else "")
    sock.sendall(head.encode("latin-1") + (b"" if head_only else payload))


def serve_upstream(sock):
    with lock:
        state["connections"] += 1
    reader = Reader(sock, recording=True)
    try:
        while True:
            try:
                request = read_request(reader)
            except ValueError as error:
                with lock:
                    state["errors"].append(str(error))
                respond(sock, 400, json.dumps({"detail": str(error)}).encode(), close=True)
                return
            if request is None:
                return
            with lock:
                state["requests"].append(request)
            respond(sock, 200, json.dumps(request).encode(), head_only=request["method"] == "HEAD")
    except (Closed, OSError):
        pass
    finally:
        sock.close()


def serve_control(sock):
    reader = Reader(sock, recording=False)
    try:
        while True:
            request = read_request(reader)
            if request is None:
                return
            if request["target"] == "/reset":
                reset()
                payload = b"{}"
            else:
                with lock:
                    snapshot = dict(state, raw=state["raw"].decode("latin-1"))
                    payload = json.dumps(snapshot).encode()
            respond(sock, 200, payload)
    except (Closed, OSError, ValueError):
        pass
    finally:
        sock.close()


def listen(handler):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(512)

    def accept_loop():
        while True:
            connection, _ = server.accept()
            threading.Thread(target=handler, args=(connection,), daemon=True).start()

    threading.Thread(target=accept_loop, daemon=True).start()
    return server.getsockname()[1]


def main():
    upstream_port = listen(serve_upstream)
    control_port = listen(serve_control)
    print(f"READY {upstream_port} {control_port}", flush=True)
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
