#!/usr/bin/python3
"""A fake APNs provider API for tests (Debian python3-h2 and python3-cryptography). TEST ONLY.

HTTP/2 over TLS with a test certificate (--cert/--key), or cleartext h2c with prior knowledge
(no --cert). Checks what Apple checks: POST /3/device/<hex token>, the ES256 provider token
(signature against the public half of --signing-key, `kid`, `iss`, age), the apns-* headers
and the 4096-byte payload limit, and answers like Apple.

The answer is chosen by the device token's prefix so that tests control it:
  ba0d   400 BadDeviceToken          410    410 Unregistered + timestamp
  403e   403 ExpiredProviderToken    429    429 TooManyRequests (always)
  500    500 InternalServerError     503    503 ServiceUnavailable (always)
  0dd    400 with a reason Apple does not have (FutureReason)
  f1a4 / f1a5 / f1a3   429 / 500 / 503 on the first request for the token, then 200
  60a    GOAWAY and connection close on the first request for the token, then 200
  57a11  never answered (a stall)
  anything else        200 with apns-id

With --throttle-after-rejection it also limits streams the way APNs does (Apple radar 27870881):
after an error answer it announces SETTINGS_MAX_CONCURRENT_STREAMS 1, after the next 200 its
--max-concurrent-streams again.

Every request is appended to --record as one JSON line: connection number, stream id, method,
path, token, headers, parsed payload, payload size, provider-token header and claims, status
and reason, and the stream limit announced when it arrived. Prints `READY <port>` once
listening on 127.0.0.1.
"""
import argparse
import asyncio
import base64
import json
import re
import ssl
import sys
import time
import uuid

import h2.config
import h2.connection
import h2.events
import h2.settings
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

MAX_PAYLOAD = 4096
UNREGISTERED_TIMESTAMP = 1_700_000_000_000
TOKEN_MAX_AGE = 3600
HEX = re.compile(r"^[0-9a-fA-F]+$")
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Fake:
    def __init__(self, args):
        with open(args.signing_key, "rb") as handle:
            private = serialization.load_pem_private_key(handle.read(), password=None)
        self.public_key = private.public_key()
        self.key_id = args.key_id
        self.team_id = args.team_id
        self.bundle_id = args.bundle_id
        self.record = open(args.record, "a", buffering=1) if args.record else None
        self.max_streams = args.max_concurrent_streams
        self.throttles = args.throttle_after_rejection
        self.connections = 0
        self.seen = {}
        # Signatures already verified (a provider token is reused for many requests): keeps the
        # fake's ceiling above the clients it measures. The claims are still checked every time.
        self.verified = set()

    def log(self, entry):
        if self.record:
            self.record.write(json.dumps(entry, sort_keys=True) + "\n")

    def check_provider_token(self, value, entry):
        if value is None:
            return 403, "MissingProviderToken"
        if not value.lower().startswith("bearer "):
            return 403, "InvalidProviderToken"
        parts = value[7:].strip().split(".")
        if len(parts) != 3:
            return 403, "InvalidProviderToken"
        try:
            header = json.loads(b64url_decode(parts[0]))
            claims = json.loads(b64url_decode(parts[1]))
            signature = b64url_decode(parts[2])
        except ValueError:
            return 403, "InvalidProviderToken"
        entry["jwt_header"] = header
        entry["jwt_claims"] = claims
        if header.get("alg") != "ES256" or len(signature) != 64:
            return 403, "InvalidProviderToken"
        if header.get("kid") != self.key_id:
            return 403, "InvalidProviderToken"
        if value not in self.verified:
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
            try:
                self.public_key.verify(der, (parts[0] + "." + parts[1]).encode(), ec.ECDSA(hashes.SHA256()))
            except InvalidSignature:
                return 403, "InvalidProviderToken"
            self.verified.add(value)
        entry["jwt_valid"] = True
        if claims.get("iss") != self.team_id:
            return 403, "InvalidProviderToken"
        iat = claims.get("iat")
        if not isinstance(iat, int):
            return 403, "InvalidProviderToken"
        if time.time() - iat > TOKEN_MAX_AGE:
            return 403, "ExpiredProviderToken"
        return None

    def check(self, method, path, headers, duplicates, body, entry):
        """Apple's checks in Apple's order; None when the request is acceptable."""
        if method != "POST":
            return 405, "MethodNotAllowed"
        match = re.match(r"^/3/device/(.*)$", path)
        if not match:
            return 404, "BadPath"
        token = match.group(1)
        if not token:
            return 400, "MissingDeviceToken"
        if not HEX.match(token):
            return 400, "BadDeviceToken"
        if duplicates:
            return 400, "DuplicateHeaders"
        failure = self.check_provider_token(headers.get("authorization"), entry)
        if failure:
            return failure
        apns_id = headers.get("apns-id")
        if apns_id is not None and not UUID.match(apns_id):
            return 400, "BadMessageId"
        push_type = headers.get("apns-push-type", "alert")
        if push_type not in ("alert", "background", "liveactivity", "location", "voip", "complication",
                             "fileprovider", "mdm", "pushtotalk"):
            return 400, "InvalidPushType"
        priority = headers.get("apns-priority", "10")
        if priority not in ("1", "5", "10") or (push_type == "background" and priority != "5"):
            return 400, "BadPriority"
        topic = headers.get("apns-topic")
        if not topic:
            return 400, "MissingTopic"
        live_topic = self.bundle_id + ".push-type.liveactivity"
        if topic not in (self.bundle_id, live_topic):
            return 400, "TopicDisallowed"
        if (push_type == "liveactivity") != (topic == live_topic):
            return 400, "InvalidPushType"
        expiration = headers.get("apns-expiration")
        if expiration is not None and not expiration.isdigit():
            return 400, "BadExpirationDate"
        collapse = headers.get("apns-collapse-id")
        if collapse is not None and len(collapse.encode()) > 64:
            return 400, "BadCollapseId"
        if not body:
            return 400, "PayloadEmpty"
        if len(body) > MAX_PAYLOAD:
            return 413, "PayloadTooLarge"
        try:
            payload = json.loads(body)
        except ValueError:
            return 400, "PayloadEmpty"
        if not isinstance(payload, dict) or not isinstance(payload.get("aps"), dict):
            return 400, "PayloadEmpty"
        return None

    def scenario(self, token):
        """The scripted answer for `token`: ('answer', status, reason) / ('goaway',) / ('stall',)."""
        count = self.seen.get(token, 0)
        self.seen[token] = count + 1
        for prefix, status, reason in (("f1a4", 429, "TooManyRequests"), ("f1a5", 500, "InternalServerError"),
                                       ("f1a3", 503, "ServiceUnavailable")):
            if token.startswith(prefix):
                return ("answer", status, reason) if count == 0 else ("answer", 200, None)
        if token.startswith("60a"):
            return ("goaway",) if count == 0 else ("answer", 200, None)
        if token.startswith("57a11"):
            return ("stall",)
        for prefix, status, reason in (("ba0d", 400, "BadDeviceToken"), ("410", 410, "Unregistered"),
                                       ("403e", 403, "ExpiredProviderToken"), ("429", 429, "TooManyRequests"),
                                       ("500", 500, "InternalServerError"), ("503", 503, "ServiceUnavailable"),
                                       ("0dd", 400, "FutureReason")):
            if token.startswith(prefix):
                return ("answer", status, reason)
        return ("answer", 200, None)


class Connection(asyncio.Protocol):
    def __init__(self, fake):
        self.fake = fake
        fake.connections += 1
        self.number = fake.connections
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.streams = {}
        self.transport = None
        self.stream_limit = fake.max_streams

    def connection_made(self, transport):
        self.transport = transport
        self.conn.local_settings = h2.settings.Settings(
            client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.fake.max_streams})
        self.conn.initiate_connection()
        self.flush()

    def flush(self):
        if self.transport and not self.transport.is_closing():
            self.transport.write(self.conn.data_to_send())

    def data_received(self, data):
        try:
            events = self.conn.receive_data(data)
        except Exception:
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = {"headers": event.headers, "body": bytearray()}
            elif isinstance(event, h2.events.DataReceived):
                stream = self.streams.get(event.stream_id)
                if stream is not None:
                    stream["body"] += event.data
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.handle(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                self.streams.pop(event.stream_id, None)
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.transport.close()
                return
        self.flush()

    def handle(self, stream_id):
        stream = self.streams.pop(stream_id, None)
        if stream is None:
            return
        headers = {}
        duplicates = False
        for name, value in stream["headers"]:
            if name in headers and not name.startswith(":"):
                duplicates = True
            headers[name] = value
        body = bytes(stream["body"])
        method, path = headers.get(":method"), headers.get(":path", "")
        token = path[len("/3/device/"):] if path.startswith("/3/device/") else None
        entry = {"connection": self.number, "stream": stream_id, "method": method, "path": path, "token": token,
                 "headers": {k: v for k, v in headers.items() if not k.startswith(":")},
                 "payload_bytes": len(body), "received_at": time.time(), "stream_limit": self.stream_limit}
        try:
            entry["payload"] = json.loads(body) if body else None
        except ValueError:
            entry["payload"] = None
        failure = self.fake.check(method, path, headers, duplicates, body, entry)
        apns_id = headers.get("apns-id") or str(uuid.uuid4())
        if failure:
            action = ("answer",) + failure
        else:
            action = self.fake.scenario(token)
        entry["action"] = action[0]
        if action[0] == "stall":
            entry["status"] = None
            self.fake.log(entry)
            return
        if action[0] == "goaway":
            entry["status"] = None
            self.fake.log(entry)
            self.conn.close_connection(error_code=0, last_stream_id=stream_id)
            self.flush()
            self.transport.close()
            return
        _, status, reason = action
        entry["status"] = status
        entry["reason"] = reason
        self.fake.log(entry)
        if self.fake.throttles:
            limit = self.fake.max_streams if reason is None else 1
            if limit != self.stream_limit:
                self.stream_limit = limit
                self.conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: limit})
        response_headers = [(":status", str(status)), ("apns-id", apns_id)]
        if reason is None:
            self.conn.send_headers(stream_id, response_headers, end_stream=True)
            return
        answer = {"reason": reason}
        if status == 410:
            answer["timestamp"] = UNREGISTERED_TIMESTAMP
        data = json.dumps(answer).encode()
        response_headers += [("content-type", "application/json"), ("content-length", str(len(data)))]
        self.conn.send_headers(stream_id, response_headers)
        self.conn.send_data(stream_id, data, end_stream=True)

    def connection_lost(self, exc):
        self.transport = None


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--signing-key", required=True, help="the APNs .p8 key whose public half verifies tokens")
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--cert", help="TLS certificate (PEM); none = h2c with prior knowledge")
    parser.add_argument("--key", help="TLS private key (PEM)")
    parser.add_argument("--record", help="append one JSON line per request to this file")
    parser.add_argument("--max-concurrent-streams", type=int, default=1000)
    parser.add_argument("--throttle-after-rejection", action="store_true",
                        help="announce 1 stream after an error answer, the maximum after a 200 (as APNs does)")
    parser.add_argument("--exit-with-stdin", action="store_true",
                        help="exit when standard input closes (the parent died: no orphan peer)")
    args = parser.parse_args()
    if args.exit_with_stdin:
        import os
        import threading

        def watch():
            sys.stdin.buffer.read()
            os._exit(0)

        threading.Thread(target=watch, daemon=True).start()
    fake = Fake(args)
    context = None
    if args.cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
        context.set_alpn_protocols(["h2"])
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Connection(fake), "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    print(f"READY {port}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
