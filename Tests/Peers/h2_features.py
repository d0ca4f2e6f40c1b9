#!/usr/bin/env python3
"""An HTTP/2 client (Debian's python3-h2) for the gateway's HTTP/2 feature tests: what curl and
nghttp cannot do (a WebSocket over HTTP/2, RFC 8441; a reader that never opens its window; a
request body that stalls; requests around SIGTERM).

Usage: h2_features.py SCENARIO PORT [options]
  --tls CA_FILE        TLS with ALPN h2 (host name localhost); default: cleartext, prior knowledge
  --path PATH          request path
  --header NAME:VALUE  an extra request field (repeatable)

Scenarios (each prints one JSON line with what the server answered):
  websocket   extended CONNECT (:protocol websocket); on 200 sends --message as a masked text
              frame (or --message-bytes N bytes as a binary one, within the windows) and reads the echo; with --wait-close S waits up to S seconds for the
              gateway's close frame (its code and reason) and the END_STREAM after it
              {"connect_protocol": 0|1, "status": N, "headers": {...}, "echo": str, "echo_bytes": N,
               "echo_intact": bool, "close": [code, reason],
               "ended": bool, "reset": code}
  connect     extended CONNECT with --protocol NAME (or a plain CONNECT with --protocol "")
  event-stream  GET that reads DATA until END_STREAM (or a reset) within --wait S seconds
              {"status": N, "body": str, "ended": bool, "reset": code}
  stalled-reader  SETTINGS_INITIAL_WINDOW_SIZE 1 and no WINDOW_UPDATE ever, GET --path; waits up
              to --wait S for the stream's reset (or the connection's end)
              {"status": N, "received": bytes, "reset": code, "goaway": code, "closed": bool}
  stalled-body  POST announcing 1000 bytes, sends 10 and stalls; waits up to --wait S for the answer
              {"status": N, "reset": code}
  stalled-body-answered  POST announcing 1000 bytes, sends 10, waits for the response head (the
              upstream answers before the body ends), then stalls; waits up to --wait S for the
              stream's reset, then sends a GET for --after on the same connection
              {"status": N, "reset": code, "after": N, "after_ended": bool, "closed": bool}
  sigterm PID  a request for --path in flight (seen by the upstream peer at --upstream PORT),
              SIGTERM to PID, then a new stream after the GOAWAY
              {"goaway": code, "last_stream": id, "statuses": {"1": N}, "late": "answered"|"refused"|"ignored",
               "closed": bool}
"""
import argparse
import json
import os
import signal
import socket
import ssl
import struct
import time

import h2.config
import h2.connection
import h2.events
import h2.settings


def parse_arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario")
    parser.add_argument("port", type=int)
    parser.add_argument("pid", type=int, nargs="?")
    parser.add_argument("--tls")
    parser.add_argument("--path", default="/")
    parser.add_argument("--header", action="append", default=[])
    parser.add_argument("--message", default="hello over h2")
    parser.add_argument("--message-bytes", type=int, default=0)
    parser.add_argument("--wait-close", type=float, default=0)
    parser.add_argument("--wait", type=float, default=20)
    parser.add_argument("--protocol", default="websocket")
    parser.add_argument("--upstream", type=int)
    parser.add_argument("--after", default="/echo/after")
    return parser.parse_args()


class Client:
    def __init__(self, arguments, settings=None):
        self.arguments = arguments
        raw = socket.create_connection(("127.0.0.1", arguments.port), timeout=10)
        if arguments.tls:
            context = ssl.create_default_context(cafile=arguments.tls)
            context.set_alpn_protocols(["h2"])
            self.sock = context.wrap_socket(raw, server_hostname="localhost")
            assert self.sock.selected_alpn_protocol() == "h2", self.sock.selected_alpn_protocol()
            self.scheme = "https"
        else:
            self.sock = raw
            self.scheme = "http"
        # Outbound checks off: a plain CONNECT (no :scheme, no :path, RFC 9113 §8.5) is valid
        # HTTP/2 that h2 would refuse to send.
        self.conn = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=True, header_encoding="utf-8", validate_outbound_headers=False))
        self.conn.initiate_connection()
        if settings:
            self.conn.update_settings(settings)
        self.closed = False
        self.goaway = None
        self.last_stream = None
        self.remote_settings = {}
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data and not self.closed:
            try:
                self.sock.sendall(data)
            except OSError:
                self.closed = True

    def events(self, timeout):
        """Events from what arrives within `timeout` seconds (an empty list when nothing does)."""
        if self.closed:
            return []
        try:
            self.sock.settimeout(max(0.05, timeout))
            data = self.sock.recv(65536)
        except socket.timeout:
            return []
        except (OSError, ssl.SSLError):
            self.closed = True
            return []
        if not data:
            self.closed = True
            return []
        try:
            events = self.conn.receive_data(data)
        except Exception as error:  # noqa: BLE001 — a protocol error ends the report, not the script
            self.closed = True
            return [error]
        for event in events:
            if isinstance(event, h2.events.RemoteSettingsChanged):
                for code, change in event.changed_settings.items():
                    self.remote_settings[int(code)] = change.new_value
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.goaway = event.error_code
                self.last_stream = event.last_stream_id
        self.flush()
        return events

    def run(self, until, deadline):
        """Handles events until `until(event)` is true for one, the peer closes, or the deadline."""
        end = time.monotonic() + deadline
        while not self.closed and time.monotonic() < end:
            # Every event of a read is seen (a DATA frame's END_STREAM comes as a second event).
            matched = [event for event in self.events(end - time.monotonic()) if until(event)]
            if matched:
                return matched[0]
        return None

    def settle(self):
        """Waits for the server's SETTINGS (and acknowledges them, as h2 does on receipt)."""
        self.run(lambda e: isinstance(e, h2.events.RemoteSettingsChanged), 10)

    def request_fields(self, method, path, protocol=None):
        fields = [(":method", method)]
        if protocol:
            fields.append((":protocol", protocol))
        if method != "CONNECT" or protocol:
            fields += [(":scheme", self.scheme), (":path", path)]
        fields.append((":authority", "localhost:%d" % self.arguments.port))
        for header in self.arguments.header:
            name, _, value = header.partition(":")
            fields.append((name.strip().lower(), value.strip()))
        return fields


def websocket_frame(opcode, payload):
    """A client frame (masked, RFC 6455 §5.3), FIN set."""
    mask = os.urandom(4)
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
    elif length < 65536:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def parse_frames(buffer):
    """Complete server frames (unmasked) at the start of `buffer`: [(opcode, payload)], rest."""
    frames = []
    while len(buffer) >= 2:
        opcode = buffer[0] & 0x0F
        length = buffer[1] & 0x7F
        offset = 2
        if length == 126:
            if len(buffer) < 4:
                break
            length = struct.unpack("!H", buffer[2:4])[0]
            offset = 4
        elif length == 127:
            if len(buffer) < 10:
                break
            length = struct.unpack("!Q", buffer[2:10])[0]
            offset = 10
        if len(buffer) < offset + length:
            break
        frames.append((opcode, buffer[offset:offset + length]))
        buffer = buffer[offset + length:]
    return frames, buffer


def websocket(arguments, protocol):
    client = Client(arguments)
    client.settle()
    report = {"connect_protocol": client.remote_settings.get(h2.settings.SettingCodes.ENABLE_CONNECT_PROTOCOL, 0)}
    stream = client.conn.get_next_available_stream_id()
    method = "CONNECT"
    fields = client.request_fields(method, arguments.path, protocol or None)
    if protocol:
        # RFC 8441 §5: the version field of RFC 6455 goes with the extended CONNECT.
        fields.append(("sec-websocket-version", "13"))
    client.conn.send_headers(stream, fields, end_stream=False)
    client.flush()
    received = {"buffer": b"", "frames": []}

    def on_event(event):
        if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
            headers = dict(event.headers)
            report["status"] = int(headers.get(":status", 0))
            report["headers"] = {k: v for k, v in headers.items() if not k.startswith(":")}
            return True
        if isinstance(event, h2.events.StreamReset) and event.stream_id == stream:
            report["reset"] = event.error_code
            return True
        return False

    client.run(on_event, 20)
    if report.get("status") != 200 or protocol != "websocket":
        client.run(lambda e: isinstance(e, h2.events.StreamEnded), 2)
        print(json.dumps(report))
        return

    def on_data(event):
        if isinstance(event, h2.events.DataReceived) and event.stream_id == stream:
            client.conn.acknowledge_received_data(event.flow_controlled_length, stream)
            client.flush()
            frames, received["buffer"] = parse_frames(received["buffer"] + event.data)
            received["frames"] += frames
            return bool(frames)
        if isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
            report["ended"] = True
            return True
        if isinstance(event, h2.events.StreamReset) and event.stream_id == stream:
            report["reset"] = event.error_code
            return True
        return False

    message = arguments.message.encode()
    if arguments.message_bytes:
        message = bytes((index * 7) % 251 for index in range(arguments.message_bytes))
    # Within the stream's and the connection's windows, waiting for WINDOW_UPDATE when shut.
    pending = websocket_frame(0x2 if arguments.message_bytes else 0x1, message)
    end = time.monotonic() + 30
    while pending and not client.closed and time.monotonic() < end:
        room = min(client.conn.local_flow_control_window(stream), client.conn.max_outbound_frame_size, len(pending))
        if room <= 0:
            client.run(lambda e: on_data(e) or isinstance(e, h2.events.WindowUpdated), end - time.monotonic())
            continue
        client.conn.send_data(stream, pending[:room])
        pending = pending[room:]
        client.flush()
    while not received["frames"] and "reset" not in report and not report.get("ended") and time.monotonic() < end:
        client.run(on_data, end - time.monotonic())
    for opcode, payload in received["frames"]:
        if opcode == 0x1:
            report["echo"] = payload.decode()
        elif opcode == 0x2:
            report["echo_bytes"] = len(payload)
            report["echo_intact"] = payload == message
    received["frames"] = []
    if arguments.wait_close:
        end = time.monotonic() + arguments.wait_close
        while "close" not in report and "reset" not in report and not report.get("ended") and time.monotonic() < end:
            client.run(on_data, end - time.monotonic())
            for opcode, payload in received["frames"]:
                if opcode == 0x8:
                    code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                    report["close"] = [code, payload[2:].decode()]
            received["frames"] = []
        if "close" in report and not report.get("ended"):
            # The gateway ends its side after the close frame (END_STREAM, RFC 8441 §4).
            client.run(on_data, 10)
    print(json.dumps(report))


def event_stream(arguments):
    client = Client(arguments)
    client.settle()
    stream = client.conn.get_next_available_stream_id()
    client.conn.send_headers(stream, client.request_fields("GET", arguments.path), end_stream=True)
    client.flush()
    report = {"body": ""}

    def on_event(event):
        if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
            report["status"] = int(dict(event.headers).get(":status", 0))
        elif isinstance(event, h2.events.DataReceived) and event.stream_id == stream:
            client.conn.acknowledge_received_data(event.flow_controlled_length, stream)
            client.flush()
            report["body"] += event.data.decode(errors="replace")
        elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
            report["ended"] = True
            return True
        elif isinstance(event, h2.events.StreamReset) and event.stream_id == stream:
            report["reset"] = event.error_code
            return True
        return False

    client.run(on_event, arguments.wait)
    report["closed"] = client.closed
    print(json.dumps(report))


def stalled_reader(arguments):
    client = Client(arguments, settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1})
    client.settle()
    stream = client.conn.get_next_available_stream_id()
    client.conn.send_headers(stream, client.request_fields("GET", arguments.path), end_stream=True)
    client.flush()
    report = {"received": 0}

    def on_event(event):
        if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
            report["status"] = int(dict(event.headers).get(":status", 0))
        elif isinstance(event, h2.events.DataReceived) and event.stream_id == stream:
            # Never acknowledged: the window stays shut.
            report["received"] += len(event.data)
        elif isinstance(event, h2.events.StreamReset) and event.stream_id == stream:
            report["reset"] = event.error_code
            return True
        elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
            report["ended"] = True
            return True
        return isinstance(event, h2.events.ConnectionTerminated)

    # Reported once the response started, so the caller can measure while the stream is stalled.
    client.run(lambda e: on_event(e) or "status" in report, 20)
    print(json.dumps({"started": report.get("status")}), flush=True)
    client.run(on_event, arguments.wait)
    report["goaway"] = client.goaway
    report["closed"] = client.closed
    print(json.dumps(report))


def stalled_body(arguments):
    client = Client(arguments)
    client.settle()
    stream = client.conn.get_next_available_stream_id()
    fields = client.request_fields("POST", arguments.path) + [("content-length", "1000")]
    client.conn.send_headers(stream, fields, end_stream=False)
    client.conn.send_data(stream, b"x" * 10)
    client.flush()
    report = {}

    def on_event(event):
        if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
            report["status"] = int(dict(event.headers).get(":status", 0))
            return True
        if isinstance(event, h2.events.StreamReset) and event.stream_id == stream:
            report["reset"] = event.error_code
            return True
        return False

    client.run(on_event, arguments.wait)
    report["closed"] = client.closed
    print(json.dumps(report))


def stalled_body_answered(arguments):
    client = Client(arguments)
    client.settle()
    stream = client.conn.get_next_available_stream_id()
    fields = client.request_fields("POST", arguments.path) + [("content-length", "1000")]
    client.conn.send_headers(stream, fields, end_stream=False)
    client.conn.send_data(stream, b"x" * 10)
    client.flush()
    report = {}

    def on_event(event):
        if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
            report["status"] = int(dict(event.headers).get(":status", 0))
        elif isinstance(event, h2.events.DataReceived) and event.stream_id == stream:
            client.conn.acknowledge_received_data(event.flow_controlled_length, stream)
            client.flush()
        elif isinstance(event, h2.events.StreamReset) and event.stream_id == stream:
            report["reset"] = event.error_code
            return True
        elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
            report["ended"] = True
            return True
        return False

    # The response starts while the body is incomplete; from then on the client sends nothing.
    client.run(lambda e: on_event(e) or "status" in report, 20)
    if "status" in report and "reset" not in report and not report.get("ended"):
        client.run(on_event, arguments.wait)
    if "reset" in report and not client.closed:
        # The connection still serves a new stream.
        after = client.conn.get_next_available_stream_id()
        client.conn.send_headers(after, client.request_fields("GET", arguments.after), end_stream=True)
        client.flush()

        def on_after(event):
            if isinstance(event, h2.events.ResponseReceived) and event.stream_id == after:
                report["after"] = int(dict(event.headers).get(":status", 0))
            elif isinstance(event, h2.events.DataReceived) and event.stream_id == after:
                client.conn.acknowledge_received_data(event.flow_controlled_length, after)
                client.flush()
            elif isinstance(event, h2.events.StreamEnded) and event.stream_id == after:
                report["after_ended"] = True
                return True
            elif isinstance(event, h2.events.StreamReset) and event.stream_id == after:
                report["after_reset"] = event.error_code
                return True
            return False

        client.run(on_after, 20)
    report["closed"] = client.closed
    print(json.dumps(report))


def upstream_slow_count(port):
    """How many /slow requests the upstream peer received so far (its /count)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET /count HTTP/1.1\r\nHost: peer\r\nConnection: close\r\n\r\n")
            data = b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        return json.loads(data.split(b"\r\n\r\n", 1)[1]).get("slow", 0)
    except (OSError, ValueError, IndexError):
        return 0


def sigterm(arguments):
    """Frames by hyperframe and hpack directly: h2 stops reading a connection after a GOAWAY,
    and the point is what the server still sends after one."""
    import hpack
    from hyperframe.frame import DataFrame, Frame, GoAwayFrame, HeadersFrame, RstStreamFrame, SettingsFrame, WindowUpdateFrame

    sock = socket.create_connection(("127.0.0.1", arguments.port), timeout=10)
    encoder, decoder = hpack.Encoder(), hpack.Decoder()
    state = {"buffer": b"", "closed": False, "goaway": None, "last_stream": None}
    statuses, ended = {}, set()

    def send(*frames):
        try:
            sock.sendall(b"".join(f.serialize() for f in frames))
        except OSError:
            state["closed"] = True

    def request(stream_id, path):
        frame = HeadersFrame(stream_id)
        frame.data = encoder.encode([(":method", "GET"), (":scheme", "http"), (":path", path),
                                     (":authority", "localhost:%d" % arguments.port)])
        frame.flags.add("END_HEADERS")
        frame.flags.add("END_STREAM")
        return frame

    def handle(frame):
        if isinstance(frame, SettingsFrame) and "ACK" not in frame.flags:
            send(SettingsFrame(0, flags=["ACK"]))
        elif isinstance(frame, GoAwayFrame):
            state["goaway"], state["last_stream"] = frame.error_code, frame.last_stream_id
        elif isinstance(frame, RstStreamFrame):
            statuses[str(frame.stream_id)] = "reset %d" % frame.error_code
        elif isinstance(frame, HeadersFrame):
            fields = dict(decoder.decode(frame.data))
            if ":status" in fields:
                statuses[str(frame.stream_id)] = int(fields[":status"])
        elif isinstance(frame, DataFrame) and frame.flow_controlled_length:
            send(WindowUpdateFrame(0, window_increment=frame.flow_controlled_length),
                 WindowUpdateFrame(frame.stream_id, window_increment=frame.flow_controlled_length))
        if isinstance(frame, (HeadersFrame, DataFrame)) and "END_STREAM" in frame.flags:
            ended.add(frame.stream_id)

    def read(until, deadline):
        end = time.monotonic() + deadline
        while not until() and not state["closed"] and time.monotonic() < end:
            try:
                sock.settimeout(max(0.05, end - time.monotonic()))
                chunk = sock.recv(65536)
            except socket.timeout:
                break
            except OSError:
                state["closed"] = True
                break
            if not chunk:
                state["closed"] = True
                break
            state["buffer"] += chunk
            while len(state["buffer"]) >= 9:
                frame, length = Frame.parse_frame_header(memoryview(state["buffer"][:9]))
                if len(state["buffer"]) < 9 + length:
                    break
                frame.parse_body(memoryview(state["buffer"][9:9 + length]))
                state["buffer"] = state["buffer"][9 + length:]
                handle(frame)

    sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + SettingsFrame(0).serialize())
    send(request(1, arguments.path))
    # The request is in flight (the upstream holds it) when the signal comes: the upstream's
    # /count says so (polled to a deadline), or, without --upstream, half a second passed.
    if arguments.upstream:
        end = time.monotonic() + 20
        while upstream_slow_count(arguments.upstream) < 1 and time.monotonic() < end:
            read(lambda: False, 0.05)
    else:
        read(lambda: False, 0.5)
    os.kill(arguments.pid, signal.SIGTERM)
    read(lambda: state["goaway"] is not None, 10)
    late = None
    if state["goaway"] is not None and not state["closed"]:
        # A stream the GOAWAY did not admit, as a client that had not seen it yet would send.
        late = 3
        send(request(late, "/echo/late"))
    read(lambda: 1 in ended and state["closed"], 20)
    report = {"goaway": state["goaway"], "last_stream": state["last_stream"], "statuses": statuses,
              "ended": sorted(ended), "closed": state["closed"]}
    if late is not None:
        report["late"] = statuses.get(str(late), "ignored")
    print(json.dumps(report))


def main():
    arguments = parse_arguments()
    if arguments.scenario == "websocket":
        websocket(arguments, "websocket")
    elif arguments.scenario == "connect":
        websocket(arguments, arguments.protocol)
    elif arguments.scenario == "event-stream":
        event_stream(arguments)
    elif arguments.scenario == "stalled-reader":
        stalled_reader(arguments)
    elif arguments.scenario == "stalled-body":
        stalled_body(arguments)
    elif arguments.scenario == "stalled-body-answered":
        stalled_body_answered(arguments)
    elif arguments.scenario == "sigterm":
        sigterm(arguments)
    else:
        raise SystemExit("unknown scenario " + arguments.scenario)


if __name__ == "__main__":
    main()
