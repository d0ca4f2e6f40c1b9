#!/usr/bin/env python3
"""An OTLP/HTTP trace receiver for the gateway's tracing tests (the venv of
scripts/install-python-tools.sh: opentelemetry-proto decodes what arrives).

Prints `READY <port>` once it listens on 127.0.0.1. Exits when stdin closes.

  POST /v1/traces   an ExportTraceServiceRequest: `application/x-protobuf` is parsed with
                    opentelemetry-proto's classes; `application/json` (OTLP/JSON: ids in hex)
                    is parsed into the same classes with protobuf's JSON parser, unknown fields
                    refused. Anything that does not decode gets 400 and is counted in `rejected`.
                    Each span is recorded with its resource, scope, the encoding and the
                    request's header names and values.
  GET  /spans       {"spans": [...], "requests": N, "rejected": N, "errors": [...]}
  POST /control?delay=S&status=N   later exports wait S seconds, then answer N (default 0, 200)
"""
import base64
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

lock = threading.Lock()
spans = []
errors = []
counts = {"requests": 0, "rejected": 0}
behaviour = {"delay": 0.0, "status": 200}


def hex_to_base64(value):
    if not isinstance(value, str) or any(c not in "0123456789abcdef" for c in value):
        raise ValueError("id is not lowercase hex: %r" % (value,))
    return base64.b64encode(bytes.fromhex(value)).decode()


def from_json(body):
    """OTLP/JSON differs from protobuf's JSON mapping only in its ids (hex, not base64)."""
    document = json.loads(body)
    for resource_spans in document.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for key, length in (("traceId", 16), ("spanId", 8), ("parentSpanId", 8)):
                    if key in span:
                        if len(span[key]) != 2 * length:
                            raise ValueError("%s has %d characters" % (key, len(span[key])))
                        span[key] = hex_to_base64(span[key])
    request = ExportTraceServiceRequest()
    json_format.ParseDict(document, request, ignore_unknown_fields=False)
    return request


def any_value(value):
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


def attributes(key_values):
    return {kv.key: any_value(kv.value) for kv in key_values}


def record(request, encoding, headers):
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append({
                    "traceId": span.trace_id.hex(),
                    "spanId": span.span_id.hex(),
                    "parentSpanId": span.parent_span_id.hex(),
                    "traceState": span.trace_state,
                    "name": span.name,
                    "kind": span.kind,
                    "startTimeUnixNano": span.start_time_unix_nano,
                    "endTimeUnixNano": span.end_time_unix_nano,
                    "attributes": attributes(span.attributes),
                    "statusCode": span.status.code,
                    "resource": resource,
                    "scope": {"name": scope_spans.scope.name, "version": scope_spans.scope.version},
                    "encoding": encoding,
                    "headers": headers,
                })


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"{}", content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if urlsplit(self.path).path != "/spans":
            return self.answer(404)
        with lock:
            body = json.dumps({"spans": spans, "errors": errors, **counts}).encode()
        self.answer(200, body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        url = urlsplit(self.path)
        if url.path == "/control":
            query = parse_qs(url.query)
            with lock:
                behaviour["delay"] = float(query.get("delay", ["0"])[0])
                behaviour["status"] = int(query.get("status", ["200"])[0])
            return self.answer(200)
        if url.path != "/v1/traces":
            return self.answer(404)
        with lock:
            counts["requests"] += 1
            delay, status = behaviour["delay"], behaviour["status"]
        content_type = self.headers.get("Content-Type", "")
        try:
            if content_type == "application/x-protobuf":
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                encoding = "protobuf"
            elif content_type == "application/json":
                request = from_json(body)
                encoding = "json"
            else:
                raise ValueError("content type %r" % content_type)
        except Exception as error:  # anything that does not decode is the sender's fault
            with lock:
                counts["rejected"] += 1
                errors.append(str(error))
            return self.answer(400, json.dumps({"error": str(error)}).encode())
        headers = [[name.lower(), value] for name, value in self.headers.items()]
        with lock:
            record(request, encoding, headers)
        if delay:
            time.sleep(delay)
        # ExportTraceServiceResponse: empty, in the request's encoding.
        self.answer(status, b"{}" if encoding == "json" else b"", content_type)


class Server(ThreadingHTTPServer):
    daemon_threads = True


def main():
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("READY %d" % server.server_address[1], flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
