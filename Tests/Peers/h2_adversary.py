#!/usr/bin/env python3
"""Plays the HTTP/2 attacks of the gateway's hardening tests against a cleartext listener
(prior knowledge), with frames built by hyperframe and header blocks by hpack (the libraries
under Python's h2), so that sequences no well-behaved client sends can be sent.

Usage: h2_adversary.py SCENARIO PORT

Prints one JSON line with what the server answered:
  {"goaway": <error code or null>, "resets": {"<stream id>": <error code>}, "statuses": {"<id>": <status>},
   "closed": <bool>}

Scenarios:
  refused-stream      opens 1.5 × SETTINGS_MAX_CONCURRENT_STREAMS streams without ending any
  rapid-reset         opens and resets 3000 streams (CVE-2023-44487)
  continuation-flood  one HEADERS without END_HEADERS followed by endless CONTINUATION frames
  hpack-bomb          one large field in the dynamic table, then referenced until the block is huge
  oversized-headers   a header list above the advertised SETTINGS_MAX_HEADER_LIST_SIZE
  stream-id-backwards a request on stream 5 after one on stream 7
  sigterm PID         not an attack: a slow request in flight, then SIGTERM to PID (the gateway);
                      GOAWAY must come and the request still be answered
"""
import json
import os
import signal
import socket
import sys
import time

import hpack
from h2_frames import FrameReading
from hyperframe.frame import (ContinuationFrame, DataFrame, HeadersFrame, RstStreamFrame, SettingsFrame,
                              WindowUpdateFrame)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


class Connection(FrameReading):
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""
        self.encoder = hpack.Encoder()
        self.settings = {}
        self.goaway = None
        self.resets = {}
        self.statuses = {}
        self.closed = False
        self.decoder = hpack.Decoder()
        self.sock.sendall(PREFACE + SettingsFrame(0).serialize())

    def send(self, *frames):
        try:
            self.sock.sendall(b"".join(f.serialize() for f in frames))
        except OSError:
            self.closed = True

    def send_raw(self, data):
        try:
            self.sock.sendall(data)
        except OSError:
            self.closed = True

    def request_block(self, path="/echo/adversary", extra=()):
        fields = [(":method", "GET"), (":scheme", "http"), (":path", path), (":authority", "localhost")]
        return self.encoder.encode(fields + list(extra))

    def headers(self, stream_id, block, end_stream=True, end_headers=True):
        frame = HeadersFrame(stream_id)
        frame.data = block
        frame.flags.add("END_HEADERS") if end_headers else None
        frame.flags.add("END_STREAM") if end_stream else None
        return frame

    def handle(self, frame):
        self.record(frame)
        if isinstance(frame, DataFrame) and frame.flow_controlled_length:
            self.send(WindowUpdateFrame(0, window_increment=frame.flow_controlled_length))

    def report(self):
        print(json.dumps({"goaway": self.goaway, "resets": self.resets, "statuses": self.statuses, "closed": bool(self.closed)}))


def refused_stream(port):
    c = Connection(port)
    c.read_frames(lambda c: 3 in c.settings)
    limit = c.settings.get(3, 100)
    # Slow requests keep their streams open while the rest arrive.
    for index in range(limit + limit // 2):
        c.send(c.headers(1 + 2 * index, c.request_block("/slow?s=2")))
    c.read_frames(lambda c: len(c.statuses) + len(c.resets) >= limit + limit // 2, deadline=20)
    c.report()


def rapid_reset(port):
    c = Connection(port)
    c.read_frames(lambda c: 3 in c.settings)
    for index in range(3000):
        stream_id = 1 + 2 * index
        c.send(c.headers(stream_id, c.request_block("/slow?s=5")), RstStreamFrame(stream_id, error_code=8))
        if c.closed:
            break
    c.read_frames(lambda c: c.goaway is not None, deadline=10)
    c.report()


def continuation_flood(port):
    c = Connection(port)
    c.read_frames(lambda c: 3 in c.settings)
    c.send(c.headers(1, c.request_block(), end_stream=True, end_headers=False))
    block = hpack.Encoder().encode([("x-flood", "a" * 10)])
    for _ in range(20000):
        frame = ContinuationFrame(1)
        frame.data = b""
        c.send(frame)
        if c.closed:
            break
    c.read_frames(lambda c: c.goaway is not None, deadline=10)
    c.report()


def hpack_bomb(port):
    c = Connection(port)
    c.read_frames(lambda c: 3 in c.settings)
    # One 4000-byte value enters the dynamic table (incremental indexing); every later
    # reference is one byte on the wire and 4 KB decoded.
    encoder = hpack.Encoder()
    first = encoder.encode([(":method", "GET"), (":scheme", "http"), (":path", "/echo/bomb"), (":authority", "localhost"),
                            ("x-bomb", "b" * 4000)])
    c.send(c.headers(1, first))
    reference = bytes([0x80 | 62])  # indexed field: the newest dynamic-table entry (RFC 7541 §6.1)
    base = encoder.encode([(":method", "GET"), (":scheme", "http"), (":path", "/echo/bomb"), (":authority", "localhost")])
    c.send(c.headers(3, base + reference * 4000))
    c.read_frames(lambda c: c.goaway is not None or "3" in c.resets or "3" in c.statuses, deadline=10)
    c.report()


def oversized_headers(port):
    c = Connection(port)
    c.read_frames(lambda c: 6 in c.settings)
    limit = c.settings.get(6, 65536)
    fields = [("x-big-%d" % i, "v" * 1000) for i in range(limit // 1000 + 2)]
    block = c.request_block(extra=fields)
    # Split into frames of at most 16384 bytes (the default SETTINGS_MAX_FRAME_SIZE).
    chunks = [block[i:i + 16384] for i in range(0, len(block), 16384)]
    frames = [c.headers(1, chunks[0], end_stream=True, end_headers=len(chunks) == 1)]
    for index, chunk in enumerate(chunks[1:], start=1):
        frame = ContinuationFrame(1)
        frame.data = chunk
        if index == len(chunks) - 1:
            frame.flags.add("END_HEADERS")
        frames.append(frame)
    c.send(*frames)
    c.send(c.headers(3, c.request_block()))
    c.read_frames(lambda c: c.goaway is not None or ("1" in c.statuses or "1" in c.resets) and "3" in c.statuses, deadline=10)
    c.report()


def stream_id_backwards(port):
    c = Connection(port)
    c.read_frames(lambda c: 3 in c.settings)
    c.send(c.headers(7, c.request_block()))
    c.send(c.headers(5, c.request_block()))
    # Stream 7's answer may follow the GOAWAY that stream 5 causes (GOAWAY names 7 as the last).
    c.read_frames(lambda c: "7" in c.statuses, deadline=10)
    # Anything the server says about stream 5 arrives with or soon after stream 7's answer.
    c.read_frames(lambda c: c.goaway is not None or "5" in c.statuses or "5" in c.resets, deadline=1)
    c.report()


def sigterm(port, pid):
    c = Connection(port)
    c.read_frames(lambda c: 3 in c.settings)
    c.send(c.headers(1, c.request_block("/slow?s=2")))
    # The request is in the gateway (and the upstream) before the signal.
    time.sleep(0.5)
    os.kill(pid, signal.SIGTERM)
    c.read_frames(lambda c: c.goaway is not None and "1" in c.statuses, deadline=20)
    c.read_frames(lambda c: c.closed, deadline=5)
    c.report()


SCENARIOS = {
    "refused-stream": refused_stream,
    "rapid-reset": rapid_reset,
    "continuation-flood": continuation_flood,
    "hpack-bomb": hpack_bomb,
    "oversized-headers": oversized_headers,
    "stream-id-backwards": stream_id_backwards,
}

if __name__ == "__main__":
    if sys.argv[1] == "sigterm":
        sigterm(int(sys.argv[2]), int(sys.argv[3]))
    else:
        SCENARIOS[sys.argv[1]](int(sys.argv[2]))
