"""The frame-reading half of the HTTP/2 attack peers (h2_adversary.py, h2_attacks.py): frames are
read off the socket with hyperframe, and what the server says is recorded — its SETTINGS (then
acknowledged), GOAWAY, the streams it reset and the statuses it answered. Each peer adds what it
does with the rest (window updates, ended streams) in its own `handle`.

A peer sets `sock`, `buffer` (b""), `decoder` (hpack.Decoder), `settings` ({}), `goaway` (None),
`resets` ({}), `statuses` ({}) and `closed` (falsy) and has `send(*frames)`.
"""
import socket
import time

from hyperframe.frame import Frame, GoAwayFrame, HeadersFrame, RstStreamFrame, SettingsFrame


class FrameReading:
    def read_frames(self, until, deadline=10.0):
        """Reads frames until `until(self)` holds, the server closes ("eof", or "reset" on an
        error), or the deadline passes."""
        end = time.monotonic() + deadline
        while not until(self) and not self.closed and time.monotonic() < end:
            try:
                self.sock.settimeout(max(0.05, end - time.monotonic()))
                chunk = self.sock.recv(65536)
            except socket.timeout:
                break
            except OSError:
                self.closed = "reset"
                break
            if not chunk:
                self.closed = "eof"
                break
            self.buffer += chunk
            while len(self.buffer) >= 9:
                frame, length = Frame.parse_frame_header(memoryview(self.buffer[:9]))
                if len(self.buffer) < 9 + length:
                    break
                frame.parse_body(memoryview(self.buffer[9:9 + length]))
                self.buffer = self.buffer[9 + length:]
                self.handle(frame)

    def record(self, frame):
        """Records what the server said in `frame`; SETTINGS are acknowledged."""
        if isinstance(frame, SettingsFrame) and "ACK" not in frame.flags:
            self.settings.update(frame.settings)
            self.send(SettingsFrame(0, flags=["ACK"]))
        elif isinstance(frame, GoAwayFrame):
            self.goaway = frame.error_code
        elif isinstance(frame, RstStreamFrame):
            self.resets[str(frame.stream_id)] = frame.error_code
        elif isinstance(frame, HeadersFrame):
            try:
                fields = dict(self.decoder.decode(frame.data))
            except Exception:
                fields = {}
            status = fields.get(":status") or fields.get(b":status")
            if status is not None:
                self.statuses[str(frame.stream_id)] = int(status)
