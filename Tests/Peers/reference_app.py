#!/usr/bin/env python3
"""The Python reference (bmsdna-app-native 0.6.0) as a backend mounts it, for the differential
suite (Tests/Peers/differential.py). Runs in .build/reference-venv (scripts/install-reference.sh).

Two modes, one app each, both with the reference's ten native routes mounted under /api by its
own `create_*_router()` functions:

--mode reference   The reference serving the app directly: `create_entra_auth_dependency` with an
                   `EntraTokenVerifier` for the dev tenant and audience, whose `fetch_jwks` returns
                   the dev identity provider's JWKS (--jwks FILE): it accepts exactly the dev tokens
                   the gateway accepts. Callbacks record what they receive and answer the case's
                   canned result, converted to the reference's models as a backend would.

--mode upstream    The recording backend behind the gateway: the same routers, whose auth hook reads
                   the gateway's identity headers (docs/migration.md, step 2), so the records show
                   what a Python backend behind the gateway receives (the reference's own parse of
                   the forwarded body: step 3). A middleware in front records the raw request
                   (headers and bytes) and answers the case's canned result as raw JSON (or as
                   text/plain for a "text" answer), whatever the routers answered (their status is
                   recorded as `inner_status`).

Each request names its case in `X-Diff-Case`; --cases FILE maps case ids to canned answers:
  {"<case>": {"kind": "ok"} | {"kind": "json", "body": <JSON>} | {"kind": "text", "body": <string>}
             | {"kind": "error", "status": N, "detail": <JSON>}}
"ok" is a callback returning nothing; "json" is converted to the route's result model as a backend's
answer would be (a JSON `null` included, which the models refuse); "text" is a document reference
returned as a string.
Control routes (never recorded): GET /_diff/records, POST /_diff/reset.

Prints `READY <port>` once it listens on 127.0.0.1; exits when standard input closes.
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import logging
import os
import socket
import sys
import threading
from typing import Any
from urllib.parse import unquote

import uvicorn
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import Response
from pydantic import TypeAdapter

from bmsdna.app_native import (
    ActionOption,
    Approval,
    ApprovalDecisionResult,
    EntraTokenVerifier,
    WidgetActionResult,
    WidgetOptionsResult,
    create_approvals_router,
    create_document_router,
    create_entra_auth_dependency,
    create_ingest_router,
    create_live_activity_router,
    create_notification_action_router,
    create_widget_action_router,
    create_widget_feed_router,
    create_widget_options_router,
)
from bmsdna.app_native.widgets import Widget

DEV_TENANT = "d0d0d0d0-0000-4000-8000-00000000de01"
DEV_AUDIENCE = "appnative-dev-ios-app"
CASE_HEADER = "x-diff-case"

RECORDS: dict[str, list[dict[str, Any]]] = {}
RAW: dict[str, list[dict[str, Any]]] = {}
CASES: dict[str, dict[str, Any]] = {}

_widgets = TypeAdapter(list[Widget])
_approvals = TypeAdapter(list[Approval])
_options = TypeAdapter(list[ActionOption])


def case_of(request: Request) -> str:
    return request.headers.get(CASE_HEADER, "")


def record(request: Request, entry: dict[str, Any]) -> None:
    RECORDS.setdefault(case_of(request), []).append(entry)


def user_view(user: Any) -> dict[str, Any] | None:
    if user is None:
        return None
    if isinstance(user, dict):
        return user
    return {"oid": user.oid, "email": user.email, "name": user.name, "tenant_id": user.tenant_id, "upn": user.upn}


def model_record(route: str, body: Any, context: Any) -> dict[str, Any]:
    """A request model as the callback receives it, serialised as the reference serialises it."""
    return {
        "route": route,
        "model": body.model_dump(mode="json"),
        "fields_set": sorted(body.model_fields_set),
        # What a non-Python backend should read: the model as Pydantic writes it, the fields the
        # app sent only (absent stays absent, a sent null stays null), in the model's order.
        "wire": wire_text(body),
        "user": user_view(context.user),
    }


def wire_text(body: Any) -> str | None:
    try:
        return body.model_dump_json(exclude_unset=True)
    except ValueError:  # a lone surrogate cannot be written as UTF-8
        return None


class Canned:
    """The case's canned answer, as the reference's callbacks give it (reference mode)."""

    def __init__(self, request: Request) -> None:
        self.spec = CASES.get(case_of(request), {"kind": "ok"})

    def raise_error(self) -> None:
        if self.spec.get("kind") == "error":
            raise HTTPException(status_code=self.spec["status"], detail=self.spec.get("detail"))

    @property
    def body(self) -> Any:
        return self.spec.get("body") if self.spec.get("kind") in ("json", "text") else None

    @property
    def has_result(self) -> bool:
        """Whether the backend answered a result (JSON `null` included) rather than nothing."""
        return self.spec.get("kind") == "json"


def feed_entries(body: Any, key: str) -> Any:
    # A feed document gives its list; a bare array is the list itself.
    if isinstance(body, dict):
        return body.get(key, [])
    return body


def reference_callbacks(upstream: bool) -> dict[str, Any]:
    """The backend's callbacks: record, then answer the canned result (reference mode) or
    nothing (upstream mode, where the middleware answers)."""

    async def event(route: str, body: Any, context: Any) -> None:
        record(context.request, model_record(route, body, context))
        if not upstream:
            Canned(context.request).raise_error()

    async def on_device(body, context):
        await event("devices", body, context)

    async def on_location(body, context):
        await event("locations", body, context)

    async def on_notification_action(body, context):
        await event("notification-actions", body, context)

    async def on_live_activity(body, context):
        await event("live-activities", body, context)

    async def get_widgets(context):
        record(context.request, {"route": "widgets", "device_id": context.device_id, "user": user_view(context.user)})
        if upstream:
            return []
        canned = Canned(context.request)
        canned.raise_error()
        if canned.body is None:
            return []
        return _widgets.validate_json(json.dumps(feed_entries(canned.body, "widgets")))

    async def get_approvals(context):
        record(context.request, {"route": "approvals", "device_id": context.device_id, "user": user_view(context.user)})
        if upstream:
            return []
        canned = Canned(context.request)
        canned.raise_error()
        if canned.body is None:
            return []
        return _approvals.validate_json(json.dumps(feed_entries(canned.body, "approvals")))

    async def on_widget_action(body, context):
        await event("widget-actions", body, context)
        canned = Canned(context.request)
        if upstream or not canned.has_result:
            return None
        return WidgetActionResult.model_validate_json(json.dumps(canned.body))

    async def on_options(body, context):
        await event("widget-options", body, context)
        canned = Canned(context.request)
        if upstream or not canned.has_result:
            return []
        if isinstance(canned.body, list):
            return _options.validate_json(json.dumps(canned.body))
        return WidgetOptionsResult.model_validate_json(json.dumps(canned.body))

    async def on_decision(body, context):
        await event("approval-decisions", body, context)
        canned = Canned(context.request)
        if upstream or not canned.has_result:
            return None
        return ApprovalDecisionResult.model_validate_json(json.dumps(canned.body))

    async def on_document(document, context):
        record(context.request, {
            "route": "documents",
            "metadata": document.metadata.model_dump(mode="json"),
            "filename": document.filename,
            "content_type": document.content_type,
            "size": len(document.data),
            "sha256": hashlib.sha256(document.data).hexdigest(),
            "user": user_view(context.user),
        })
        if upstream:
            return None
        canned = Canned(context.request)
        canned.raise_error()
        return canned.body

    return locals()


def mount(app: FastAPI, auth: Any, upstream: bool) -> None:
    c = reference_callbacks(upstream)
    routers = [
        create_ingest_router(on_device_registered=c["on_device"], on_location_received=c["on_location"], auth_dependency=auth),
        create_document_router(on_document_received=c["on_document"], auth_dependency=auth),
        create_notification_action_router(on_action_received=c["on_notification_action"], auth_dependency=auth),
        create_widget_feed_router(get_widgets=c["get_widgets"], auth_dependency=auth),
        create_widget_action_router(on_action_received=c["on_widget_action"], auth_dependency=auth),
        create_widget_options_router(on_options_requested=c["on_options"], auth_dependency=auth),
        create_approvals_router(get_approvals=c["get_approvals"], on_decision=c["on_decision"], auth_dependency=auth),
        create_live_activity_router(on_token_received=c["on_live_activity"], auth_dependency=auth),
    ]
    for router in routers:
        app.include_router(router, prefix="/api")


def control_routes(app: FastAPI) -> None:
    @app.get("/_diff/records")
    async def records() -> Response:
        # ASCII JSON: a record may hold a lone surrogate, which UTF-8 cannot carry.
        return Response(json.dumps({"records": RECORDS, "raw": RAW}, default=repr), media_type="application/json")

    @app.post("/_diff/reset")
    async def reset() -> dict[str, bool]:
        RECORDS.clear()
        RAW.clear()
        return {"ok": True}


def reference_app(jwks_file: str) -> FastAPI:
    with open(jwks_file, encoding="utf-8") as handle:
        jwks = json.load(handle)

    async def fetch_jwks() -> dict[str, Any]:
        return jwks

    verifier = EntraTokenVerifier(tenant_id=DEV_TENANT, audience=DEV_AUDIENCE, fetch_jwks=fetch_jwks)
    app = FastAPI()
    mount(app, create_entra_auth_dependency(verifier), upstream=False)
    control_routes(app)
    return app


async def gateway_identity(request: Request) -> dict[str, Any]:
    """docs/migration.md, step 2: the identity from the gateway's headers."""

    def header(name: str) -> str | None:
        value = request.headers.get(name)
        return unquote(value) if value is not None else None

    oid = header("x-appnative-user-id")
    if oid is None:
        raise HTTPException(401, "Not authenticated")
    return {"oid": oid, "email": header("x-appnative-user-email"), "name": header("x-appnative-user-name"),
            "tenant_id": header("x-appnative-tenant-id"), "upn": header("x-appnative-user-upn")}


class RecordingUpstream:
    """ASGI wrapper: records the raw request, runs the routers on it (they record the parsed
    event), then answers the case's canned result as raw JSON."""

    RECORDED_HEADERS = ("content-type", "content-length", "transfer-encoding")

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            return await self.app(scope, receive, send)
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        case = headers.get(CASE_HEADER, "")
        entry = {
            "method": scope["method"],
            "path": scope["path"],
            "query": scope.get("query_string", b"").decode("latin-1"),
            "headers": {name: headers[name] for name in self.RECORDED_HEADERS if name in headers},
            # Whether a credential reached the backend (never its value).
            "authorization_present": "authorization" in headers,
            "body_b64": base64.b64encode(bytes(body)).decode("ascii"),
        }
        RAW.setdefault(case, []).append(entry)

        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                await asyncio.sleep(3600)
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        inner: dict[str, Any] = {"status": None, "body": bytearray()}

        async def capture(message):
            if message["type"] == "http.response.start":
                inner["status"] = message["status"]
            elif message["type"] == "http.response.body":
                inner["body"] += message.get("body", b"")

        try:
            await self.app(scope, replay, capture)
        except Exception as error:  # the routers' own failure: recorded, not answered
            inner["status"] = inner["status"] or 500
            inner["body"] += repr(error).encode()
        entry["inner_status"] = inner["status"]
        if inner["status"] is None or not 200 <= inner["status"] < 300:
            entry["inner_body"] = bytes(inner["body"][:4000]).decode("utf-8", "replace")
        await self.answer(case, scope["path"], send)

    async def answer(self, case: str, path: str, send) -> None:
        spec = CASES.get(case, {"kind": "ok"})
        route = path.rsplit("/", 1)[-1]
        if spec.get("kind") == "error":
            status, payload = spec["status"], {"detail": spec.get("detail")}
        elif spec.get("kind") == "json":
            status, payload = 200, spec.get("body")
        elif route in ("devices", "locations", "notification-actions", "live-activities"):
            status, payload = 200, {"ok": True}
        elif route in ("widgets",):
            status, payload = 200, {"schema": 1, "widgets": []}
        elif route in ("approvals",):
            status, payload = 200, {"approvals": []}
        else:  # a result or a document without anything to say
            status, payload = 204, None
        body = b"" if status == 204 else json.dumps(payload).encode()
        media_type = b"application/json"
        if spec.get("kind") == "text":
            status, body, media_type = 200, spec["body"].encode(), b"text/plain; charset=utf-8"
        headers = [(b"content-length", str(len(body)).encode())]
        if status != 204:
            headers.append((b"content-type", media_type))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def upstream_app() -> Any:
    app = FastAPI()
    mount(app, gateway_identity, upstream=True)
    control_routes(app)
    return RecordingUpstream(app)


def exit_when_stdin_closes() -> None:
    def watch() -> None:
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("reference", "upstream"), required=True)
    parser.add_argument("--cases", required=True, help="JSON file: case id -> canned answer")
    parser.add_argument("--jwks", help="the dev JWKS document (reference mode)")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    with open(args.cases, encoding="utf-8") as handle:
        CASES.update(json.load(handle))
    if args.mode == "reference":
        if not args.jwks:
            parser.error("--jwks is required in reference mode")
        app: Any = reference_app(args.jwks)
    else:
        app = upstream_app()
    logging.getLogger("bmsdna.app_native").setLevel(logging.ERROR)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    config = uvicorn.Config(app, log_level="error", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    exit_when_stdin_closes()
    print(f"READY {sock.getsockname()[1]}", flush=True)
    asyncio.run(server.serve(sockets=[sock]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
