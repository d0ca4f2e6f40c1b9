#!/usr/bin/env python3
"""Example backend behind the App Native Gateway (docs/upstream-contract.md).

Standard library only, so it runs anywhere Python 3.9+ runs:

    python3 docs/examples/native_upstream.py --port 8000

The gateway has already authenticated the caller and validated every body against the contract
before a request arrives here. This backend therefore:
  * takes the caller's identity ONLY from the gateway's headers (X-AppNative-User-Id, ...);
    `user_email` in a body is an unverified client hint and is never used as the identity;
  * answers the ten native routes as docs/contract/routes.md describes (the gateway turns the
    answers into the app's exact responses: {"ok":true}, 204, validated feeds);
  * keeps everything in memory (a real backend would use its database).

The `/_example/*` routes let the integration tests look at what arrived; a real backend has no
such routes. Never expose this example to a network: it trusts the gateway's headers, so it
must only be reachable through the gateway.
"""
import argparse
import email.parser
import email.policy
import hashlib
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
DEVICES = {}          # (oid, device_id) -> {"push_token": ..., "platform": ..., "user_email": ...}
EVENTS = []           # every accepted event: {"route", "oid", "headers", "body"}
DOCUMENTS = []        # {"id", "oid", "sha256", "size", "filename", "content_type", "fields"}
MAX_DOCUMENT = 26_214_400 + 64 * 1024   # the gateway enforces the limit; this is a safety net


def identity(headers):
    """The verified caller, from the gateway's headers (values are percent-encoded UTF-8)."""
    def header(name):
        value = headers.get(name)
        return urllib.parse.unquote(value) if value is not None else None
    oid = header("X-AppNative-User-Id")
    return {"oid": oid, "email": header("X-AppNative-User-Email"), "name": header("X-AppNative-User-Name")}


def widget_feed(user, include_invalid):
    """One widget of every kind (docs/contract/models.md §1), for the app's dashboard."""
    name = user["name"] or user["email"] or "there"
    widgets = [
        {"id": "greeting", "kind": "text", "title": "Welcome", "data": {"markdown": f"Hello **{name}**"}},
        {"id": "open-tickets", "kind": "kpi", "size": "small", "title": "Open tickets",
         "data": {"value": 12, "unit": "tickets", "trend": {"direction": "down", "text": "-3", "positive": True}}},
        {"id": "week", "kind": "stats", "title": "This week",
         "data": {"items": [{"label": "Visits", "value": 31}, {"label": "Orders", "value": "7"}]}},
        {"id": "tasks", "kind": "list", "title": "Tasks",
         "data": {"items": [{"id": "t1", "title": "Sign the contract", "subtitle": "Due today",
                             "actions": [{"id": "done", "label": "Done"}]}], "maxVisible": 3}},
        {"id": "sales", "kind": "chart", "title": "Sales",
         "data": {"type": "line", "series": [{"name": "2026", "points": [{"x": "Jan", "y": 3}, {"x": "Feb", "y": 5}]}]}},
        {"id": "quota", "kind": "progress", "title": "Quota", "data": {"value": 0.6, "total": 1, "style": "ring"}},
        {"id": "leave", "kind": "action", "title": "Request leave",
         "data": {"text": "How many days?",
                  "fields": [{"id": "days", "type": "number", "label": "Days", "required": True},
                             {"id": "reason", "type": "select", "remote": True, "label": "Reason"}],
                  "buttons": [{"id": "submit", "label": "Send"}]}},
        {"id": "news", "kind": "news", "title": "News",
         "data": {"items": [{"id": "n1", "title": "Canteen reopens", "date": "2026-11-30T08:00:00Z"}]}},
    ]
    if include_invalid:
        # A stats widget needs 1-4 items: the gateway drops this one and keeps the rest.
        widgets.insert(2, {"id": "broken-stats", "kind": "stats", "data": {"items": []}})
    return {"schema": 1, "widgets": widgets}


def approvals_feed(include_invalid):
    approvals = [
        {"id": "po-1042", "title": "Purchase order 1042", "amount": "EUR 1,200.00", "requester": "Sam Doe",
         "createdAt": "2026-11-29T10:00:00Z", "urgent": True,
         "details": [{"label": "Supplier", "value": "ACME"}], "rejectComment": "required"},
    ]
    if include_invalid:
        approvals.append({"id": "", "title": "no id"})
    return {"approvals": approvals}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "native-upstream-example"
    # Headers and body go out in separate writes: without TCP_NODELAY, Nagle's algorithm and the
    # client's delayed ACK hold every keep-alive answer for ~40 ms.
    disable_nagle_algorithm = True

    def log_message(self, *args):  # quiet: the gateway has the access log
        pass

    # -- plumbing -------------------------------------------------------------------------------
    def read_body(self, limit):
        """The request body, Content-Length or chunked (the gateway streams uploads chunked)."""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts, total = [], 0
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                total += size
                if total > limit:
                    raise ValueError("body too large")
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        if length > limit:
            raise ValueError("body too large")
        return self.rfile.read(length)

    def answer(self, status, document=None):
        body = b"" if document is None else json.dumps(document).encode()
        self.send_response(status)
        if document is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def record(self, route, user, body):
        with LOCK:
            EVENTS.append({"route": route, "path": self.path, "oid": user["oid"], "email": user["email"],
                           "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})

    # -- routes -----------------------------------------------------------------------------------
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        user = identity(self.headers)
        if url.path.startswith("/_example/"):
            return self.inspect(url.path, query)
        if user["oid"] is None:
            return self.answer(401, {"detail": "no identity: this backend only runs behind the gateway"})
        forced = self.headers.get("X-Example-Status")
        if forced:
            return self.answer(int(forced), {"detail": "forced by the test"})
        include_invalid = query.get("device_id") == ["include-invalid"]
        if url.path == "/api/widgets":
            self.record("widgets", user, None)
            return self.answer(200, widget_feed(user, include_invalid))
        if url.path == "/api/approvals":
            self.record("approvals", user, None)
            return self.answer(200, approvals_feed(include_invalid))
        return self.answer(404, {"detail": "Not Found"})

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        user = identity(self.headers)
        if user["oid"] is None:
            return self.answer(401, {"detail": "no identity: this backend only runs behind the gateway"})
        forced = self.headers.get("X-Example-Status")
        if url.path == "/api/documents":
            return self.document(user)
        try:
            raw = self.read_body(1 << 20)
            body = json.loads(raw)
        except ValueError:
            return self.answer(400, {"detail": "the gateway only forwards valid JSON"})
        if forced:
            return self.answer(int(forced), {"detail": "forced by the test"})
        route = url.path.rsplit("/", 1)[-1]
        self.record(route, user, body)
        if route == "devices":
            # Tri-state per field (docs/contract/routes.md §2.1): absent keeps, null clears, a value sets.
            with LOCK:
                stored = DEVICES.setdefault((user["oid"], body["device_id"]), {})
                for key in ("push_token", "platform", "user_email"):
                    if key in body:
                        stored[key] = body[key]
            return self.answer(200, {"ok": True})
        if route in ("locations", "notification-actions", "live-activities"):
            return self.answer(200, {"ok": True})
        if route == "widget-actions":
            if body["action_id"] == "broken-result":
                # A result the contract refuses (`ok` must read as a boolean; "yes" would): the
                # gateway answers 502.
                return self.answer(200, {"ok": "maybe"})
            if body["action_id"] == "fail":
                return self.answer(200, {"ok": False, "message": "Not possible right now", "style": "error"})
            return self.answer(200, {"ok": True, "message": "Done", "style": "success",
                                     "widget": widget_feed(user, False)["widgets"][1]})
        if route == "widget-options":
            query = body.get("query", "").lower()
            options = [{"value": v, "label": v.title()} for v in ("holiday", "illness", "training") if query in v]
            return self.answer(200, {"options": options, "emptyText": "Nothing found"})
        if route == "approval-decisions":
            word = "Approved" if body["decision"] == "approve" else "Rejected"
            return self.answer(200, {"ok": True, "message": word, "style": "success"})
        return self.answer(404, {"detail": "Not Found"})

    def document(self, user):
        """A multipart upload (docs/contract/routes.md §2.8), already checked by the gateway; answers its id."""
        try:
            raw = self.read_body(MAX_DOCUMENT)
        except ValueError:
            return self.answer(413, {"detail": "Document too large"})
        head = f"Content-Type: {self.headers.get('Content-Type')}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
        fields, file_part = {}, None
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if part.get_filename() is not None and name == "file":
                file_part = part
            else:
                fields[name] = part.get_content()
        if file_part is None or not fields.get("device_id"):
            return self.answer(422, {"detail": "file and device_id are required"})
        content = file_part.get_payload(decode=True)
        with LOCK:
            document_id = f"doc-{len(DOCUMENTS) + 1}"
            DOCUMENTS.append({"id": document_id, "oid": user["oid"], "sha256": hashlib.sha256(content).hexdigest(),
                              "size": len(content), "filename": file_part.get_filename(),
                              "content_type": file_part.get_content_type(), "fields": fields})
        self.record("documents", user, fields)
        return self.answer(200, {"id": document_id})

    def inspect(self, path, query):
        with LOCK:
            if path == "/_example/events":
                route = query.get("route", [None])[0]
                return self.answer(200, [e for e in EVENTS if route is None or e["route"] == route])
            if path == "/_example/devices":
                return self.answer(200, [{"oid": k[0], "device_id": k[1], **v} for k, v in DEVICES.items()])
            if path == "/_example/documents":
                return self.answer(200, DOCUMENTS)
        return self.answer(404, {"detail": "Not Found"})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    print(f"READY {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
