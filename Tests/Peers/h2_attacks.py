#!/usr/bin/env python3
"""Plays HTTP/2 floods, frames on the wrong stream and malformed requests (RFC 9113 §5.1, §5.4,
§8.1.1) against a cleartext listener (prior knowledge), with frames built by hyperframe and header
blocks by hpack (the libraries under Python's h2).

Usage: h2_attacks.py SCENARIO PORT

Prints one JSON line:
  {"goaway": <error code or null>, "resets": {"<stream id>": <error code>},
   "statuses": {"<stream id>": <status>}, "closed": <how the connection ended or null>,
   "sent": <frames of the flood sent>}
`closed` is "eof" (the server closed), "reset" (the server closed with bytes unread), or null
(still open when the client stopped waiting).

Scenarios:
  settings-flood        SETTINGS frames from a client that never reads (their ACKs pile up)
  ping-flood            PING frames from a client that never reads (their ACKs pile up)
  empty-data-flood      empty DATA frames without END_STREAM on an open request
  empty-headers-flood   empty HEADERS frames without END_STREAM, one new stream each
  empty-continuation-flood  HEADERS without END_HEADERS, then empty CONTINUATION frames
  empty-data:N          a POST with N empty DATA frames, then its body and END_STREAM (the test
                        sets HTTP2_MAX_EMPTY_FRAMES around N)
  data-on-stream-0      DATA on the connection's stream
  window-update-idle    WINDOW_UPDATE on a stream never opened
  data-idle             DATA on a stream never opened
  headers-closed        a request answered to the end, then HEADERS again on its stream
  stream-id-backwards   a request on stream 7, then one on stream 5
  stream-id-backwards-burst  requests on streams 7, 5 and 9 in one write
  request-trailers      a POST whose trailers name identity and framing fields (what reaches the
                        upstream is checked by the test)
  malformed:CASE [CONTROL_PORT]  one malformed request (stream 1), then a valid one (stream 3);
                        CASE is a key of MALFORMED below, or content-length-split: a DATA frame
                        overrunning content-length split across two reads, the second sent once
                        the recording upstream (its control port) has the request's head
"""
import json
import socket
import sys
import time

import hpack
from h2_frames import FrameReading
from hyperframe.frame import (ContinuationFrame, DataFrame, HeadersFrame, PingFrame, SettingsFrame,
                              WindowUpdateFrame)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# A flood stops after this many frames or seconds if the server never ends it.
FLOOD_FRAMES = 2_000_000
FLOOD_SECONDS = 30


class Connection(FrameReading):
    def __init__(self, port, receive_buffer=None):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer:
            # A small window toward the server: its answers back up in its own buffers.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", port))
        self.buffer = b""
        self.encoder = hpack.Encoder()
        self.decoder = hpack.Decoder()
        self.settings = {}
        self.goaway = None
        self.resets = {}
        self.statuses = {}
        self.ended = set()
        self.closed = None
        self.sent = 0
        self.send_raw(PREFACE + SettingsFrame(0).serialize())

    def send_raw(self, data):
        """Sends `data`; False once the server has closed (a send that only blocks is not a close)."""
        if self.closed:
            return False
        try:
            self.sock.sendall(data)
            return True
        except socket.timeout:
            return False
        except (BrokenPipeError, ConnectionResetError):
            self.closed = "reset"
            return False

    def send(self, *frames):
        return self.send_raw(b"".join(f.serialize() for f in frames))

    def block(self, fields):
        return self.encoder.encode(fields)

    @staticmethod
    def request(path, method="GET", extra=()):
        return [(":method", method), (":scheme", "http"), (":path", path), (":authority", "localhost")] + list(extra)

    @staticmethod
    def headers(stream_id, block, end_stream=True, end_headers=True):
        frame = HeadersFrame(stream_id)
        frame.data = block
        if end_headers:
            frame.flags.add("END_HEADERS")
        if end_stream:
            frame.flags.add("END_STREAM")
        return frame

    @staticmethod
    def data(stream_id, payload, end_stream=False):
        frame = DataFrame(stream_id)
        frame.data = payload
        if end_stream:
            frame.flags.add("END_STREAM")
        return frame

    def handle(self, frame):
        self.record(frame)
        if isinstance(frame, (HeadersFrame, DataFrame)) and "END_STREAM" in frame.flags:
            self.ended.add(frame.stream_id)
        if isinstance(frame, DataFrame) and frame.flow_controlled_length:
            self.send(WindowUpdateFrame(0, window_increment=frame.flow_controlled_length),
                      WindowUpdateFrame(frame.stream_id, window_increment=frame.flow_controlled_length))

    def ready(self):
        self.read_frames(lambda c: 3 in c.settings)

    def flood(self, frame_bytes, batch=2000):
        """Sends `frame_bytes` over and over until the server ends the connection or the bounds pass."""
        chunk = frame_bytes * batch
        end = time.monotonic() + FLOOD_SECONDS
        while self.sent < FLOOD_FRAMES and time.monotonic() < end:
            if not self.send_raw(chunk):
                break
            self.sent += batch

    def finish(self, deadline=10.0):
        """Reads what the server still says until it closes."""
        self.read_frames(lambda c: False, deadline=deadline)

    def report(self):
        # A flood's thousands of resets are counted, the first few kept.
        resets = dict(list(self.resets.items())[:20])
        print(json.dumps({"goaway": self.goaway, "resets": resets, "reset_count": len(self.resets),
                          "statuses": self.statuses, "closed": self.closed, "sent": self.sent}))


def unread_flood(port, frame):
    c = Connection(port, receive_buffer=4096)
    c.ready()
    # From here on nothing is read until the flood ends: every ACK the server owes waits.
    c.flood(frame.serialize())
    c.finish()
    return c


def settings_flood(port):
    return unread_flood(port, SettingsFrame(0, settings={SettingsFrame.HEADER_TABLE_SIZE: 4096}))


def ping_flood(port):
    return unread_flood(port, PingFrame(0, opaque_data=b"flooding"))


def empty_data_flood(port):
    c = Connection(port)
    c.ready()
    c.send(c.headers(1, c.block(c.request("/flood/data", "POST")), end_stream=False))
    c.flood(c.data(1, b"").serialize())
    c.finish()
    return c


def empty_headers_flood(port):
    c = Connection(port)
    c.ready()
    end = time.monotonic() + FLOOD_SECONDS
    stream_id = 1
    # Batches below SETTINGS_MAX_CONCURRENT_STREAMS, each answered (RST_STREAM per stream) before
    # the next: a client that paces itself is not stopped by the stream limit or the outbound
    # queue's bound.
    batch = 50
    while stream_id < 2 ** 31 - 2 * batch and c.sent < FLOOD_FRAMES and time.monotonic() < end:
        last = stream_id + 2 * (batch - 1)
        frames = b"".join(c.headers(stream_id + 2 * i, b"", end_stream=False).serialize() for i in range(batch))
        stream_id += 2 * batch
        if not c.send_raw(frames):
            break
        c.sent += batch
        c.read_frames(lambda c: str(last) in c.resets or c.goaway is not None, deadline=5)
        if c.goaway is not None:
            break
    c.finish()
    return c


def empty_continuation_flood(port):
    c = Connection(port)
    c.ready()
    c.send(c.headers(1, c.block(c.request("/flood/continuation")), end_headers=False))
    c.flood(ContinuationFrame(1).serialize())
    c.finish()
    return c


def data_on_stream_0(port):
    c = Connection(port)
    c.ready()
    frame = DataFrame(1)
    frame.data = b"hello"
    raw = bytearray(frame.serialize())
    raw[5:9] = (0).to_bytes(4, "big")  # hyperframe refuses stream 0 for DATA: patched on the wire
    c.send_raw(bytes(raw))
    c.finish()
    return c


def window_update_idle(port):
    c = Connection(port)
    c.ready()
    c.send(WindowUpdateFrame(9, window_increment=1000))
    c.finish()
    return c


def data_idle(port):
    c = Connection(port)
    c.ready()
    c.send(c.data(9, b"hello", end_stream=True))
    c.finish()
    return c


def headers_closed(port):
    c = Connection(port)
    c.ready()
    c.send(c.headers(1, c.block(c.request("/wrong-stream/first"))))
    c.read_frames(lambda c: 1 in c.ended)
    c.send(c.headers(1, c.block(c.request("/wrong-stream/again"))))
    c.finish()
    return c


def stream_id_backwards(port):
    c = Connection(port)
    c.ready()
    c.send(c.headers(7, c.block(c.request("/backwards/7"))))
    c.read_frames(lambda c: 7 in c.ended)
    c.send(c.headers(5, c.block(c.request("/backwards/5"))))
    c.finish()
    return c


def request_trailers(port):
    """Not an attack on the framing: a POST whose trailers name identity and framing fields."""
    c = Connection(port)
    c.ready()
    c.send(c.headers(1, c.block(c.request("/trailer-check", "POST")), end_stream=False), c.data(1, b"hello"),
           c.headers(1, c.block([("x-forwarded-user", "mallory-trailer"), ("x-appnative-user-id", "mallory-trailer"),
                                 ("x-checksum", "ok")])))
    c.read_frames(lambda c: 1 in c.ended or "1" in c.resets or c.goaway is not None)
    return c


def stream_id_backwards_burst(port):
    c = Connection(port)
    c.ready()
    # One write: nghttp2 reads stream 9 before its GOAWAY for stream 5 is on the wire.
    c.send(c.headers(7, c.block(c.request("/burst/7"))), c.headers(5, c.block(c.request("/burst/5"))),
           c.headers(9, c.block(c.request("/burst/9"))))
    c.finish()
    return c


def base(path, method="GET"):
    return [(":method", method), (":scheme", "http"), (":path", path), (":authority", "localhost")]


# Each case: the request's fields and, for a body, (content-length value, DATA payload).
MALFORMED = {
    "uppercase-name": (base("/malformed/uppercase-name") + [("X-Upper", "1")], None),
    "connection": (base("/malformed/connection") + [("connection", "keep-alive")], None),
    "transfer-encoding": (base("/malformed/transfer-encoding", "POST") + [("transfer-encoding", "chunked")], None),
    "keep-alive": (base("/malformed/keep-alive") + [("keep-alive", "timeout=5")], None),
    "proxy-connection": (base("/malformed/proxy-connection") + [("proxy-connection", "keep-alive")], None),
    "upgrade": (base("/malformed/upgrade") + [("upgrade", "websocket")], None),
    "te-gzip": (base("/malformed/te-gzip") + [("te", "gzip")], None),
    "missing-method": ([(":scheme", "http"), (":path", "/malformed/missing-method"), (":authority", "localhost")], None),
    "missing-path": ([(":method", "GET"), (":scheme", "http"), (":authority", "localhost")], None),
    "missing-scheme": ([(":method", "GET"), (":path", "/malformed/missing-scheme"), (":authority", "localhost")], None),
    "empty-path": (base(""), None),
    "duplicate-path": (base("/malformed/duplicate-path") + [(":path", "/malformed/duplicate-path")], None),
    "duplicate-method": (base("/malformed/duplicate-method") + [(":method", "POST")], None),
    "unknown-pseudo": (base("/malformed/unknown-pseudo") + [(":foo", "bar")], None),
    "response-pseudo": (base("/malformed/response-pseudo") + [(":status", "200")], None),
    "misplaced-pseudo": ([(":method", "GET"), (":scheme", "http"), ("x-before", "1"),
                          (":path", "/malformed/misplaced-pseudo"), (":authority", "localhost")], None),
    "content-length-more": (base("/malformed/content-length-more", "POST"), ("3", b"abcdef")),
    "content-length-less": (base("/malformed/content-length-less", "POST"), ("10", b"abc")),
}


def upstream_received(control_port, text):
    """Whether the recording upstream (echo_peer.py's control port) has received `text`."""
    import urllib.request
    with urllib.request.urlopen("http://127.0.0.1:%d/log" % control_port, timeout=10) as answer:
        return text in json.loads(answer.read())["raw"]


def malformed(port, case, control_port=None):
    c = Connection(port)
    c.ready()
    if case == "content-length-split":
        # The DATA frame that overruns the declared length arrives in two reads: the declared
        # length's bytes first (once the upstream has the request's head, the gateway has read
        # them), the overrun later.
        path = "/malformed/content-length-split"
        c.send(c.headers(1, c.block(base(path, "POST") + [("content-length", "3")]), end_stream=False))
        frame = c.data(1, b"abcdef", end_stream=True).serialize()
        c.send_raw(frame[:9 + 3])
        end = time.monotonic() + 10
        while control_port and not upstream_received(control_port, path) and time.monotonic() < end:
            time.sleep(0.05)
        c.send_raw(frame[9 + 3:])
    else:
        fields, body = MALFORMED[case]
        if body is None:
            c.send(c.headers(1, c.block(fields)))
        else:
            length, payload = body
            c.send(c.headers(1, c.block(fields + [("content-length", length)]), end_stream=False),
                   c.data(1, payload, end_stream=True))
    c.read_frames(lambda c: "1" in c.resets or "1" in c.statuses or c.goaway is not None)
    # The connection goes on: a valid request on the next stream is answered.
    c.send(c.headers(3, c.block(c.request("/valid/" + case))))
    c.read_frames(lambda c: 3 in c.ended or c.goaway is not None)
    return c


def empty_data(port, count):
    c = Connection(port)
    c.ready()
    c.send(c.headers(1, c.block(c.request("/empty-data/%d" % count, "POST")), end_stream=False))
    c.send_raw(c.data(1, b"").serialize() * count)
    c.send(c.data(1, b"body", end_stream=True))
    c.read_frames(lambda c: 1 in c.ended or 1 in [int(k) for k in c.resets] or c.goaway is not None)
    return c


SCENARIOS = {
    "settings-flood": settings_flood,
    "ping-flood": ping_flood,
    "empty-data-flood": empty_data_flood,
    "empty-headers-flood": empty_headers_flood,
    "empty-continuation-flood": empty_continuation_flood,
    "data-on-stream-0": data_on_stream_0,
    "window-update-idle": window_update_idle,
    "data-idle": data_idle,
    "headers-closed": headers_closed,
    "stream-id-backwards": stream_id_backwards,
    "stream-id-backwards-burst": stream_id_backwards_burst,
    "request-trailers": request_trailers,
}

if __name__ == "__main__":
    scenario, port = sys.argv[1], int(sys.argv[2])
    if scenario.startswith("empty-data:"):
        connection = empty_data(port, int(scenario.split(":", 1)[1]))
    elif scenario.startswith("malformed:"):
        connection = malformed(port, scenario.split(":", 1)[1], int(sys.argv[3]) if len(sys.argv) > 3 else None)
    else:
        connection = SCENARIOS[scenario](port)
    connection.report()
