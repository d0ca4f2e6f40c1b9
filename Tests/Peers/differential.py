#!/usr/bin/env python3
"""Differential suite: the gateway's native routes against the Python reference, request by request.

Runs in .build/reference-venv (scripts/install-reference.sh). Starts, all on 127.0.0.1:
  * Tests/Peers/jwks_server.py with the dev identity provider's JWKS (keys/dev),
  * Tests/Peers/reference_app.py --mode reference (the reference routers, Entra auth for the dev tenant),
  * Tests/Peers/reference_app.py --mode upstream (the recording backend behind the gateway),
  * the gateway (--gateway PATH) with UPSTREAM_URL pointing at the recording backend.

Generates the cases deterministically (--seed): valid bodies for each route, then systematic
mutations (lax coercions, datetimes, URLs, extra keys, null vs absent, content types, JSON syntax,
multipart edge cases, canned feeds and results). Each case is sent once to the reference and once
to the gateway; compared are the status, the answer (normalised JSON) and what the backend received
(the reference's callback record against the record of the same routers behind the gateway).
and what a non-Python backend reads (`wire`: the forwarded JSON against the reference callback's
model as Pydantic writes it, `model_dump_json(exclude_unset=True)`).

Writes --report FILE (JSON: per-route figures and every disagreement with its classification)
and prints the per-route table. Exit status 0 unless the run itself failed; the Swift wrapper
(ReferenceDifferentialTests) compares the disagreements with Tests/Peers/differential_expected.json.
Never prints the token.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import http.client
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "Tests" / "Peers"
DEV_TENANT = "d0d0d0d0-0000-4000-8000-00000000de01"
DEV_AUDIENCE = "appnative-dev-ios-app"
DEV_KID = "appnative-dev-1"
SESSION_SECRET = "differential-session-secret-0123456789abcdef"
ROUTES = [
    "devices", "locations", "notification-actions", "live-activities", "widget-actions",
    "widget-options", "approval-decisions", "documents", "widgets", "approvals",
]

# --------------------------------------------------------------------------------------------
# JSON text with what Python's json module cannot write: raw literals and duplicate keys.


class Raw:
    def __init__(self, text: str) -> None:
        self.text = text


class Pairs(list):
    """An object as a list of (key, value) pairs: keys may repeat."""


ABSENT = object()


def enc(value: Any) -> str:
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, Pairs):
        return "{" + ",".join(json.dumps(k) + ":" + enc(v) for k, v in value) + "}"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + enc(v) for k, v in value.items() if v is not ABSENT) + "}"
    if isinstance(value, list):
        return "[" + ",".join(enc(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Cases


@dataclass
class Case:
    id: str
    route: str
    group: str
    method: str
    target: str
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    canned: dict[str, Any] = field(default_factory=lambda: {"kind": "ok"})
    auth: str = "token"  # token | none | bad


JSON_CT = {"Content-Type": "application/json"}

BASE = {
    "devices": {"device_id": "d1", "push_token": "ab12cd", "platform": "ios", "user_email": "dev.user@example.com"},
    "locations": {"device_id": "d1", "user_email": "dev.user@example.com", "latitude": 47.1, "longitude": 8.5,
                  "accuracy": 5.0, "recorded_at": "2026-11-30T08:00:00Z"},
    "notification-actions": {"device_id": "d1", "action": "acknowledge", "data": {"order": 1042, "tags": ["a"]}},
    "live-activities": {"device_id": "d1", "event": "token", "activity_id": "a1", "push_token": "ff00", "user_email": "x@example.com"},
    "widget-actions": {"device_id": "d1", "widget_id": "leave", "action_id": "submit", "item_id": "t1",
                       "values": {"days": 2, "ok": True}, "user_email": "x@example.com", "source": "homeScreen"},
    "widget-options": {"device_id": "d1", "widget_id": "leave", "field_id": "reason", "query": "ill",
                       "values": {"days": 2}, "context": {"customer": 7}, "user_email": "x@example.com"},
    "approval-decisions": {"device_id": "d1", "approval_id": "po-1042", "decision": "approve", "comment": "fine",
                           "user_email": "x@example.com"},
}

# Field kinds of the request models (the reference's Pydantic models): name -> (kind, required)
FIELDS = {
    "devices": {"device_id": ("str", True), "push_token": ("str", False), "platform": ("platform", False), "user_email": ("str", False)},
    "locations": {"device_id": ("str", True), "user_email": ("str", False), "latitude": ("lat", True),
                  "longitude": ("lon", True), "accuracy": ("float", False), "recorded_at": ("datetime", False)},
    "notification-actions": {"device_id": ("str", True), "action": ("str", True), "data": ("dict", False)},
    "live-activities": {"device_id": ("str", True), "event": ("event", True), "activity_id": ("str", False),
                        "push_token": ("str", False), "user_email": ("str", False)},
    "widget-actions": {"device_id": ("str", True), "widget_id": ("str", True), "action_id": ("str", True),
                       "item_id": ("str", False), "values": ("dictdefault", False), "user_email": ("str", False),
                       "source": ("source", False)},
    "widget-options": {"device_id": ("str", True), "widget_id": ("str", False), "field_id": ("str", True),
                       "query": ("strdefault", False), "values": ("dictdefault", False), "context": ("dict", False),
                       "user_email": ("str", False)},
    "approval-decisions": {"device_id": ("str", True), "approval_id": ("str", True), "decision": ("decision", True),
                           "comment": ("str", False), "user_email": ("str", False)},
}

NUMBER_MUTATIONS = [
    ("numstr-spaces", " 12 "), ("numstr-float", "47.0"), ("numstr-int", "12"), ("numstr-underscore", "1_000"),
    ("numstr-inf", "inf"), ("numstr-neg-inf", "-inf"), ("numstr-nan", "nan"), ("numstr-exp", "1e1"),
    ("numstr-hex", "0x10"), ("numstr-empty", ""), ("numstr-plus", "+12"), ("numstr-comma", "12,5"),
    ("numstr-fullwidth", "\uff11\uff12"), ("bool-true", True), ("bool-false", False), ("int", 12), ("float-int", 12.0),
    ("raw-Infinity", Raw("Infinity")), ("raw-NaN", Raw("NaN")), ("raw-neg-zero", Raw("-0")), ("raw-1e400", Raw("1e400")),
    ("raw-tiny", Raw("1e-400")), ("raw-bigint", Raw("1" + "0" * 30)), ("raw-exp-upper", Raw("1.2E1")),
    ("list", [12]), ("object", {"v": 12}), ("null", None),
]
LAT_BOUNDS = [("bound-90", 90), ("bound-90.0", 90.0), ("bound-minus-90", -90), ("over-90", 90.0000001),
              ("over-91str", "91"), ("under-minus-90", -90.5), ("bound-90-str", "90")]
LON_BOUNDS = [("bound-180", 180), ("over-180", 180.0001), ("bound-minus-180", Raw("-180.0")), ("under-minus-180", -181)]
STR_MUTATIONS = [
    ("int", 123), ("float", 1.5), ("bool", True), ("empty", ""), ("spaces", "  x  "), ("unicode", "Zo\u00eb \u0141ukasz \U0001F600"),
    ("nul", "a\u0000b"), ("lone-surrogate", Raw('"\\ud800"')), ("escaped", Raw('"\\u0041\\n\\t"')), ("list", ["x"]),
    ("object", {"x": 1}), ("long", "x" * 5000), ("bytes-like", Raw('"\\u00ff\\u00fe"')),
]
DATETIME_MUTATIONS = [
    ("dt-offset-colon", "2026-11-30T08:00:00+02:00"), ("dt-offset-short", "2026-11-30T08:00:00+02"),
    ("dt-offset-nocolon", "2026-11-30T08:00:00+0200"), ("dt-naive", "2026-11-30T08:00:00"),
    ("dt-space", "2026-11-30 08:00:00Z"), ("dt-lower", "2026-11-30t08:00:00z"), ("dt-date-only", "2026-11-30"),
    ("dt-fraction-nanos", "2026-11-30T08:00:00.123456789Z"), ("dt-fraction-ms", "2026-11-30T08:00:00.123Z"),
    ("dt-24h", "2026-11-30T24:00:00Z"), ("dt-leap-second", "2026-12-31T23:59:60Z"), ("dt-no-seconds", "2026-11-30T08:00Z"),
    ("dt-epoch-s", 1764489600), ("dt-epoch-ms", 1764489600000), ("dt-epoch-float", 1764489600.5),
    ("dt-epoch-str", "1764489600"), ("dt-epoch-neg", -1), ("dt-epoch-zero", 0), ("dt-offset-minus", "2026-11-30T08:00:00-05:30"),
    ("dt-utc-plus0", "2026-11-30T08:00:00+00:00"), ("dt-minus0", "2026-11-30T08:00:00-00:00"), ("dt-basic", "20261130T080000Z"),
    ("dt-offset-sec", "2026-11-30T08:00:00+02:00:30"), ("dt-empty", ""), ("dt-bool", True), ("dt-year0", "0000-01-01T00:00:00Z"),
    ("dt-offset-24", "2026-11-30T08:00:00+24:00"), ("dt-comma-frac", "2026-11-30T08:00:00,5Z"),
]
ENUM_MUTATIONS = {
    "platform": [("ios", "ios"), ("iOS", "iOS"), ("android", "android"), ("empty", ""), ("int", 1), ("spaced", " ios")],
    "event": [("token", "token"), ("push_to_start_token", "push_to_start_token"), ("ended", "ended"), ("Token", "Token"),
              ("started", "started"), ("int", 0), ("empty", "")],
    "source": [("homeScreen", "homeScreen"), ("homescreen", "homescreen"), ("empty", ""), ("dashboard", "dashboard"), ("bool", True)],
    "decision": [("approve", "approve"), ("reject", "reject"), ("APPROVE", "APPROVE"), ("approve-space", "approve "),
                 ("int", 1), ("maybe", "maybe"), ("bool", True)],
}
DICT_MUTATIONS = [("empty", {}), ("nested", {"a": {"b": [1, None, "x"]}}), ("list", [1]), ("string", "x"), ("json-string", '{"a":1}'),
                  ("int", 1), ("bool", False), ("pairs-dup", Pairs([("a", 1), ("a", 2)])), ("non-str-values", {"n": 1.5, "t": True, "z": None})]


FULL_SYNTAX_ROUTES = ("devices", "locations", "widget-actions")
SAMPLED_SYNTAX = ("bom", "utf16", "trailing-comma", "top-array", "empty", "invalid-utf8")
SAMPLED_CONTENT_TYPES = ("missing", "text-plain", "form", "multipart", "vendor-plus-json")


def json_case(cases: list[Case], route: str, name: str, body: Any, group: str, headers: dict[str, str] | None = None,
              canned: dict[str, Any] | None = None, raw: bytes | None = None) -> None:
    data = raw if raw is not None else enc(body).encode("utf-8")
    cases.append(Case(
        id=f"{route}/{name}", route=route, group=group, method="POST", target=f"/api/{route}", body=data,
        headers=dict(JSON_CT if headers is None else headers), canned=canned or {"kind": "ok"},
    ))


def field_mutations(route: str, name: str, kind: str, required: bool) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = [("absent", ABSENT)]
    if kind in ("str", "strdefault"):
        # The optional client hint gets a subset; identifiers the full set.
        out += [m for m in STR_MUTATIONS if m[0] in ("int", "empty", "unicode", "list")] if name == "user_email" else STR_MUTATIONS
    elif kind in ("lat", "lon"):
        out += NUMBER_MUTATIONS
        out += LAT_BOUNDS if kind == "lat" else LON_BOUNDS
    elif kind == "float":  # the bounded coordinates carry the full set
        out += [m for m in NUMBER_MUTATIONS if m[0] in ("numstr-spaces", "numstr-float", "numstr-inf", "bool-true", "int", "raw-NaN", "list", "null")]
        out += [("negative", -1.5), ("huge", 1e308)]
    elif kind == "datetime":
        out += DATETIME_MUTATIONS
    elif kind in ENUM_MUTATIONS:
        out += ENUM_MUTATIONS[kind]
    elif kind in ("dict", "dictdefault"):
        out += DICT_MUTATIONS
    if kind not in ("lat", "lon", "float"):  # numbers have null among their mutations
        out.append(("null", None))
    return out


def generate_json_routes(cases: list[Case], rng: random.Random) -> None:
    for route, base in BASE.items():
        json_case(cases, route, "valid", base, "valid")
        minimal = {k: v for k, v in base.items() if FIELDS[route][k][1]}
        if route == "widget-options":
            minimal["widget_id"] = base["widget_id"]
        json_case(cases, route, "valid-minimal", minimal, "valid")
        for fname, (kind, required) in FIELDS[route].items():
            for mname, value in field_mutations(route, fname, kind, required):
                body = dict(base)
                body[fname] = value
                json_case(cases, route, f"{fname}:{mname}", body, f"field:{kind}")
        # Unknown keys, null vs absent of everything optional.
        json_case(cases, route, "extra-key", {**base, "unknown": 1}, "extra")
        json_case(cases, route, "extra-key-nested-null", {**base, "x_extra": {"deep": [None]}}, "extra")
        json_case(cases, route, "extra-key-camel", {**base, "deviceId": "camel"}, "extra")
        json_case(cases, route, "all-optional-null", {k: (v if FIELDS[route][k][1] else None) for k, v in base.items()}, "null")
        json_case(cases, route, "dup-key-required", Pairs([*base.items(), ("device_id", "second")]), "json-syntax")
        json_case(cases, route, "dup-key-type", Pairs([("device_id", 1), *[(k, v) for k, v in base.items()]]), "json-syntax")
        text = enc(base)
        syntax = {
            "bom": b"\xef\xbb\xbf" + text.encode(), "utf16": text.encode("utf-16"), "utf16le": text.encode("utf-16-le"),
            "utf32": text.encode("utf-32"), "trailing-comma": (text[:-1] + ",}").encode(), "top-array": f"[{text}]".encode(),
            "empty": b"", "null": b"null", "whitespace": b" \n\t" + text.encode() + b" \r\n", "comment": (text + "//x").encode(),
            "truncated": text[:-1].encode(), "two-docs": (text + text).encode(), "single-quotes": text.replace('"', "'").encode(),
            "latin1-bytes": text.replace("dev.user", "d\u00e9v.user").replace("x@", "\u00e9@").encode("latin-1", "replace"),
            "invalid-utf8": text.encode()[:-2] + b',"u":"\xff"}', "number-string-top": b'"x"',
            "deep-nesting": (text[:-1] + ',"deep":' + "[" * 200 + "]" * 200 + "}").encode(),
        }
        full = route in FULL_SYNTAX_ROUTES  # the parsing is shared: the others get a sample
        for sname, data in syntax.items():
            if not full and sname not in SAMPLED_SYNTAX:
                continue
            json_case(cases, route, f"syntax:{sname}", None, "json-syntax", raw=data)
        for cname, ctype in [("missing", None), ("text-plain", "text/plain"), ("form", "application/x-www-form-urlencoded"),
                             ("multipart", "multipart/form-data; boundary=x"), ("charset", "application/json; charset=utf-8"),
                             ("upper", "Application/JSON"), ("vendor-plus-json", "application/vnd.api+json"),
                             ("json-patch", "application/json-patch+json"), ("jsonx", "application/jsonx"),
                             ("charset-latin1", "application/json; charset=iso-8859-1"), ("params-garbage", "application/json;;;"),
                             ("text-json", "text/json"), ("spaces", " application/json ")]:
            if not full and cname not in SAMPLED_CONTENT_TYPES:
                continue
            json_case(cases, route, f"content-type:{cname}", base, "content-type", headers={} if ctype is None else {"Content-Type": ctype})
        json_case(cases, route, "content-type:form-encoded-body", None, "content-type",
                  headers={"Content-Type": "application/x-www-form-urlencoded"},
                  raw="&".join(f"{k}={v}" for k, v in base.items() if isinstance(v, str)).encode())
        # Seeded combinations of two or three field mutations.
        names = list(FIELDS[route])
        for index in range(8):
            body = dict(base)
            label = []
            for fname in rng.sample(names, k=min(len(names), rng.choice([2, 3]))):
                kind, required = FIELDS[route][fname]
                mname, value = rng.choice(field_mutations(route, fname, kind, required))
                body[fname] = value
                label.append(f"{fname}:{mname}")
            json_case(cases, route, f"combo{index}:" + ",".join(label), body, "combo")
    # Route-specific rules.
    wo = BASE["widget-options"]
    for name, body in [
        ("both-ids", {**wo, "form_id": "f1"}), ("form-only", {**{k: v for k, v in wo.items() if k != "widget_id"}, "form_id": "f1"}),
        ("neither-id", {k: v for k, v in wo.items() if k != "widget_id"}), ("both-null", {**wo, "widget_id": None, "form_id": None}),
        ("widget-null-form-set", {**wo, "widget_id": None, "form_id": "f1"}), ("form-empty-string", {**wo, "form_id": ""}),
        ("both-ids-one-invalid", {**wo, "form_id": 3}),
    ]:
        json_case(cases, "widget-options", f"rule:{name}", body, "rule")
    for name, body in [("push-to-start-no-activity", {"device_id": "d", "event": "push_to_start_token", "push_token": "ff"}),
                       ("ended-minimal", {"device_id": "d", "event": "ended", "activity_id": "a"})]:
        json_case(cases, "live-activities", f"rule:{name}", body, "rule")
    json_case(cases, "devices", "rule:clear-all", {"device_id": "d1", "push_token": None, "platform": None, "user_email": None}, "rule")


# --------------------------------------------------------------------------------------------
# Canned results (widget-actions, widget-options, approval-decisions) and feeds.

WIDGETS = [
    {"id": "greeting", "kind": "text", "title": "Welcome", "data": {"markdown": "Hello **there**", "linkLabel": "Open"}},
    {"id": "open-tickets", "kind": "kpi", "size": "small", "title": "Open tickets",
     "data": {"value": 12, "unit": "tickets", "trend": {"direction": "down", "text": "-3", "positive": True}}},
    {"id": "week", "kind": "stats", "title": "This week", "data": {"items": [{"label": "Visits", "value": 31}, {"label": "Orders", "value": "7"}]}},
    {"id": "tasks", "kind": "list", "title": "Tasks", "data": {"items": [{"id": "t1", "title": "Sign", "subtitle": "Due today",
                                                                          "actions": [{"id": "done", "label": "Done"}]}], "maxVisible": 3}},
    {"id": "sales", "kind": "chart", "title": "Sales", "data": {"type": "line", "series": [{"name": "2026", "points": [{"x": "Jan", "y": 3.0}, {"x": 2, "y": 5.5}]}]}},
    {"id": "quota", "kind": "progress", "title": "Quota", "data": {"value": 0.6, "total": 1.0, "style": "ring"}},
    {"id": "leave", "kind": "action", "title": "Request leave", "data": {
        "text": "How many days?", "fields": [{"id": "days", "type": "number", "label": "Days", "required": True, "min": 1, "max": 30},
                                             {"id": "reason", "type": "select", "remote": True, "label": "Reason"}],
        "buttons": [{"id": "submit", "label": "Send"}]}},
    {"id": "news", "kind": "news", "title": "News", "updatedAt": "2026-11-30T08:00:00Z",
     "data": {"items": [{"id": "n1", "title": "Canteen reopens", "date": "2026-11-30T08:00:00Z", "channels": ["site"]}]}},
    {"id": "brain", "kind": "web", "size": "large", "data": {"url": "https://example.com/tile", "scrollable": True}},
]
APPROVAL = {"id": "po-1042", "title": "Purchase order 1042", "amount": "EUR 1,200.00", "requester": "Sam Doe",
            "createdAt": "2026-11-29T10:00:00Z", "urgent": True, "details": [{"label": "Supplier", "value": "ACME"}],
            "rejectComment": "required"}

BOOL_COERCIONS = [("true-str", "true"), ("yes", "yes"), ("one", 1), ("one-float", 1.0), ("one-str", "1"), ("on", "on"),
                  ("false-str", "false"), ("zero", 0), ("no", "no"), ("off", "off"), ("null", None), ("two", 2), ("TRUE", "TRUE"),
                  ("t", "t"), ("y", "y"), ("empty", ""), ("list", [True])]
INT_COERCIONS = [("float-int", 3.0), ("float-frac", 3.5), ("str", "3"), ("str-spaces", " 3 "), ("underscore", "1_000"), ("bool", True),
                 ("str-float", "3.0"), ("inf-str", "inf"), ("zero", 0), ("negative", -1), ("big", 10 ** 20), ("exp-str", "3e0")]
DATE_VALUES = [(n, v) for n, v in DATETIME_MUTATIONS if n in (
    "dt-offset-colon", "dt-offset-short", "dt-offset-nocolon", "dt-naive", "dt-date-only", "dt-epoch-s", "dt-epoch-ms",
    "dt-epoch-str", "dt-fraction-nanos", "dt-space", "dt-lower", "dt-empty", "dt-24h", "dt-minus0", "dt-no-seconds")]
URL_VALUES = [("user", "https://user@example.com/x"), ("userpass", "https://user:pw@example.com/"), ("upper", "HTTPS://EXAMPLE.COM"),
              ("spaces", " https://example.com "), ("http", "http://example.com"), ("no-host", "https:///path"), ("bare", "https://"),
              ("opaque", "https:example.com"), ("port", "https://example.com:8443/x?q=1#f"), ("ipv6", "https://[::1]/"),
              ("unicode-host", "https://b\u00fccher.example/"), ("empty", ""), ("relative", "/tile"), ("javascript", "javascript:alert(1)"),
              ("tab", "https://exa\tmple.com"), ("at-only", "https://@/"), ("int", 5)]


def deep_set(document: Any, path: list[Any], value: Any) -> Any:
    copy = json.loads(json.dumps(document))
    target = copy
    for key in path[:-1]:
        target = target[key]
    if value is ABSENT:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return copy


def feed_case(cases: list[Case], route: str, name: str, canned: dict[str, Any], group: str, target: str | None = None) -> None:
    cases.append(Case(id=f"{route}/{name}", route=route, group=group, method="GET",
                      target=target or f"/api/{route}?device_id=d1", canned=canned))


def generate_feeds(cases: list[Case]) -> None:
    feed = {"schema": 1, "widgets": WIDGETS}
    feed_case(cases, "widgets", "valid", {"kind": "json", "body": feed}, "valid")
    feed_case(cases, "widgets", "valid-empty", {"kind": "json", "body": {"schema": 1, "widgets": []}}, "valid")
    feed_case(cases, "widgets", "no-canned", {"kind": "ok"}, "valid")
    for name, body in [("schema-absent", {"widgets": WIDGETS[:2]}), ("schema-2", {"schema": 2, "widgets": WIDGETS[:2]}),
                       ("schema-str", {"schema": "1", "widgets": WIDGETS[:2]}), ("schema-float", {"schema": 1.0, "widgets": WIDGETS[:2]}),
                       ("schema-0", {"schema": 0, "widgets": WIDGETS[:2]}), ("schema-null", {"schema": None, "widgets": WIDGETS[:2]}),
                       ("schema-bool", {"schema": True, "widgets": WIDGETS[:2]}), ("bare-array", WIDGETS[:2]), ("bare-empty-array", []),
                       ("widgets-null", {"schema": 1, "widgets": None}), ("widgets-object", {"schema": 1, "widgets": {"id": "x"}}),
                       ("string", "feed"), ("extra-top", {"schema": 1, "widgets": WIDGETS[:1], "next": "x"}),
                       ("one-invalid", {"schema": 1, "widgets": [WIDGETS[0], {"id": "broken", "kind": "stats", "data": {"items": []}}, WIDGETS[1]]}),
                       ("unknown-kind", {"schema": 1, "widgets": [WIDGETS[0], {"id": "x", "kind": "map", "data": {}}]}),
                       ("no-kind", {"schema": 1, "widgets": [{"id": "x", "data": {"markdown": "a"}}]}),
                       ("id-slash", {"schema": 1, "widgets": [{**WIDGETS[0], "id": "a/b"}]}),
                       ("dup-ids", {"schema": 1, "widgets": [WIDGETS[0], WIDGETS[0]]})]:
        feed_case(cases, "widgets", f"shape:{name}", {"kind": "json", "body": body}, "feed-shape")
    paths = [
        ("kpi.value", [1, "data", "value"], [("str", "12"), ("float", 12.5), ("float-int", 12.0), ("bool", True), ("null", None),
                                              ("big", 10 ** 20), ("neg-zero", -0.0)]),
        ("trend.positive", [1, "data", "trend", "positive"], BOOL_COERCIONS[:10]),
        ("required", [0, "required"], BOOL_COERCIONS[:10]),
        ("defaultEnabled", [0, "defaultEnabled"], BOOL_COERCIONS[:6]),
        ("web.scrollable", [8, "data", "scrollable"], BOOL_COERCIONS[:8]),
        ("list.maxVisible", [3, "data", "maxVisible"], INT_COERCIONS),
        ("progress.value", [5, "data", "value"], [("str", " 0.5 "), ("inf-str", "inf"), ("int", 1), ("bool", True), ("nan-str", "nan")]),
        ("chart.y", [4, "data", "series", 0, "points", 0, "y"], [("int", 3), ("str", "3"), ("bool", False), ("int-big", 10 ** 20), ("null", None)]),
        ("progress.total", [5, "data", "total"], [("int", 1), ("str", "1"), ("float-exp", 1e2)]),
        ("field.min", [6, "data", "fields", 0, "min"], [("str", "1"), ("float", 1.5), ("bool", True)]),
        ("news.date", [7, "data", "items", 0, "date"], DATE_VALUES),
        ("news.channel", [7, "data", "items", 0, "channel"], [("str", "site"), ("int", 5)]),
        ("updatedAt", [7, "updatedAt"], DATE_VALUES[:8]),
        ("web.url", [8, "data", "url"], URL_VALUES),
        ("size", [0, "size"], [("xlarge", "xlarge"), ("huge", "huge"), ("upper", "Small"), ("null", None)]),
        ("title", [0, "title"], [("absent", ABSENT), ("null", None), ("int", 3), ("empty", "")]),
        ("extra-nested", [1, "data", "extra"], [("int", 1)]),
        ("camel-snake", [3, "data", "max_visible"], [("snake", 2)]),
    ]
    for label, path, values in paths:
        for vname, value in values:
            body = {"schema": 1, "widgets": deep_set(WIDGETS, path, value)}
            feed_case(cases, "widgets", f"{label}:{vname}", {"kind": "json", "body": body}, "feed-values")
    for name, target in [("no-query", "/api/widgets"), ("empty", "/api/widgets?device_id="), ("repeated", "/api/widgets?device_id=a&device_id=b"),
                         ("plus", "/api/widgets?device_id=a+b"), ("pct-space", "/api/widgets?device_id=a%20b"),
                         ("utf8", "/api/widgets?device_id=%C3%BC"), ("bad-utf8", "/api/widgets?device_id=%FF"),
                         ("bad-pct", "/api/widgets?device_id=%ZZ"), ("other-param", "/api/widgets?x=1"), ("semicolon", "/api/widgets?device_id=a;b"),
                         ("fragmentish", "/api/widgets?device_id=a%23b")]:
        feed_case(cases, "widgets", f"query:{name}", {"kind": "json", "body": {"schema": 1, "widgets": WIDGETS[:1]}}, "query", target=target)
    feed_case(cases, "widgets", "backend-409", {"kind": "error", "status": 409, "detail": "busy"}, "backend-error")
    feed_case(cases, "widgets", "backend-500", {"kind": "error", "status": 500, "detail": "boom"}, "backend-error")

    afeed = {"approvals": [APPROVAL]}
    feed_case(cases, "approvals", "valid", {"kind": "json", "body": afeed}, "valid")
    feed_case(cases, "approvals", "no-canned", {"kind": "ok"}, "valid")
    for name, body in [("bare-array", [APPROVAL]), ("empty", {"approvals": []}), ("approvals-null", {"approvals": None}),
                       ("missing-key", {}), ("one-invalid", {"approvals": [APPROVAL, {"id": "", "title": "no id"}]}),
                       ("extra-top", {"approvals": [APPROVAL], "schema": 1}), ("snake-keys", {"approvals": [{"id": "a", "title": "t", "created_at": "2026-11-29T10:00:00Z", "conversation_id": "c"}]}),
                       ("camel-conversation", {"approvals": [{"id": "a", "title": "t", "conversationId": "c"}]})]:
        feed_case(cases, "approvals", f"shape:{name}", {"kind": "json", "body": body}, "feed-shape")
    apaths = [("createdAt", ["createdAt"], DATE_VALUES), ("dueAt", ["dueAt"], DATE_VALUES[:6]), ("urgent", ["urgent"], BOOL_COERCIONS),
              ("rejectComment", ["rejectComment"], [("none", "none"), ("Required", "Required"), ("null", None), ("bool", True)]),
              ("amount", ["amount"], [("number", 1200), ("float", 12.5), ("null", None)]),
              ("details", ["details"], [("empty", []), ("value-number", [{"label": "a", "value": 1}]), ("null", None)]),
              ("title", ["title"], [("empty", ""), ("absent", ABSENT), ("int", 1)])]
    for label, path, values in apaths:
        for vname, value in values:
            feed_case(cases, "approvals", f"{label}:{vname}", {"kind": "json", "body": {"approvals": [deep_set(APPROVAL, path, value)]}}, "feed-values")
    feed_case(cases, "approvals", "backend-403", {"kind": "error", "status": 403, "detail": {"message": "no"}}, "backend-error")


def generate_results(cases: list[Case]) -> None:
    wa, ad, wo = BASE["widget-actions"], BASE["approval-decisions"], BASE["widget-options"]
    results = {
        "widget-actions": (wa, {"ok": True, "message": "Done", "style": "success", "widget": WIDGETS[1], "openPath": "/x"}),
        "approval-decisions": (ad, {"ok": True, "message": "Approved", "style": "success", "approvals": [APPROVAL]}),
    }
    for route, (request, result) in results.items():
        json_case(cases, route, "result:valid", request, "result", canned={"kind": "json", "body": result})
        json_case(cases, route, "result:empty-object", request, "result", canned={"kind": "json", "body": {}})
        json_case(cases, route, "result:none", request, "result", canned={"kind": "ok"})
        for vname, value in BOOL_COERCIONS:
            json_case(cases, route, f"result:ok:{vname}", request, "result", canned={"kind": "json", "body": {**result, "ok": value}})
        for vname, value in [("info", "info"), ("Error", "Error"), ("danger", "danger"), ("null", None), ("int", 1)]:
            json_case(cases, route, f"result:style:{vname}", request, "result", canned={"kind": "json", "body": {**result, "style": value}})
        for vname, value in [("null", None), ("int", 5), ("empty", "")]:
            json_case(cases, route, f"result:message:{vname}", request, "result", canned={"kind": "json", "body": {**result, "message": value}})
        json_case(cases, route, "result:extra-key", request, "result", canned={"kind": "json", "body": {**result, "extra": 1}})
        json_case(cases, route, "result:bare-array", request, "result", canned={"kind": "json", "body": [result]})
        json_case(cases, route, "result:string", request, "result", canned={"kind": "json", "body": "ok"})
        json_case(cases, route, "result:null-json", request, "result", canned={"kind": "json", "body": None})
        json_case(cases, route, "result:backend-409", request, "backend-error", canned={"kind": "error", "status": 409, "detail": "conflict"})
        json_case(cases, route, "result:backend-422", request, "backend-error",
                  canned={"kind": "error", "status": 422, "detail": [{"loc": ["x"], "msg": "no", "type": "value_error"}]})
        json_case(cases, route, "result:backend-500", request, "backend-error", canned={"kind": "error", "status": 500, "detail": "boom"})
    r = results["widget-actions"][1]
    for vname, body in [("widget-invalid", {**r, "widget": {"id": "x", "kind": "stats", "data": {"items": []}}}),
                        ("widgets-one-invalid", {**r, "widgets": [WIDGETS[0], {"id": "", "kind": "text", "data": {"markdown": "a"}}]}),
                        ("widgets-list", {**r, "widgets": WIDGETS[:3]}), ("open-path-snake", {"ok": True, "open_path": "/y"}),
                        ("widget-web-http", {**r, "widget": {**WIDGETS[8], "data": {"url": "http://x"}}}),
                        ("widget-date-offset", {**r, "widget": {**WIDGETS[7], "updatedAt": "2026-11-30T08:00:00+02"}}),
                        ("open-path-null", {**r, "openPath": None})]:
        json_case(cases, "widget-actions", f"result:{vname}", wa, "result", canned={"kind": "json", "body": body})
    a = results["approval-decisions"][1]
    for vname, body in [("approvals-one-invalid", {**a, "approvals": [APPROVAL, {"id": "x"}]}), ("approvals-empty", {**a, "approvals": []}),
                        ("approvals-null", {**a, "approvals": None}), ("approval-date-epoch", {**a, "approvals": [{**APPROVAL, "dueAt": 1764489600}]})]:
        json_case(cases, "approval-decisions", f"result:{vname}", ad, "result", canned={"kind": "json", "body": body})
    options = [{"value": "illness", "label": "Illness", "subtitle": "sick"}, {"value": "holiday"}]
    for vname, body in [("valid", {"options": options, "emptyText": "Nothing"}), ("bare-array", options), ("bare-empty", []),
                        ("empty-object", {}), ("options-null", {"options": None}), ("snake-empty-text", {"options": options, "empty_text": "x"}),
                        ("value-int", {"options": [{"value": 1}]}), ("value-null", {"options": [{"value": None}]}),
                        ("label-int", {"options": [{"value": "a", "label": 2}]}), ("extra", {"options": options, "more": True}),
                        ("option-extra", {"options": [{"value": "a", "icon": "x"}]}), ("one-invalid", {"options": [options[0], {"label": "no value"}]}),
                        ("bare-invalid", [{"label": "x"}]), ("string", "x"), ("many", {"options": [{"value": str(i)} for i in range(60)]})]:
        json_case(cases, "widget-options", f"result:{vname}", wo, "result", canned={"kind": "json", "body": body})
    json_case(cases, "widget-options", "result:none", wo, "result", canned={"kind": "ok"})
    json_case(cases, "widget-options", "result:null-json", wo, "result", canned={"kind": "json", "body": None})
    json_case(cases, "widget-options", "result:backend-404", wo, "backend-error", canned={"kind": "error", "status": 404, "detail": "gone"})


# --------------------------------------------------------------------------------------------
# Documents (multipart/form-data)

BOUNDARY = "diffBoundary7MA4YWxk"
PDF = b"%PDF-1.4\n" + bytes(range(256)) + b"\r\n--notTheBoundary\r\n" + b"x" * 700


def part(name: str | None, value: bytes, filename: Any = None, content_type: str | None = None, extra: str = "",
         disposition: str | None = None) -> bytes:
    if disposition is None:
        disposition = "form-data" + (f'; name="{name}"' if name is not None else "")
        if filename is not None:
            disposition += "; " + (filename if isinstance(filename, str) and filename.startswith(("filename", "FILENAME")) else f'filename="{filename}"')
    head = f"Content-Disposition: {disposition}\r\n" if disposition != "" else ""
    if content_type:
        head += f"Content-Type: {content_type}\r\n"
    head += extra
    return head.encode("utf-8", "surrogateescape") + b"\r\n" + value


def multipart(parts: list[bytes], boundary: str = BOUNDARY, preamble: bytes = b"", epilogue: bytes = b"", close: bool = True,
              newline: bytes = b"\r\n") -> bytes:
    out = preamble
    for p in parts:
        out += b"--" + boundary.encode() + newline + p.replace(b"\r\n", newline) + newline
    if close:
        out += b"--" + boundary.encode() + b"--" + newline + epilogue
    return out


def text_fields(**fields: str) -> list[bytes]:
    return [part(k, v.encode()) for k, v in fields.items()]


def doc_case(cases: list[Case], name: str, body: bytes, group: str, content_type: str | None = f"multipart/form-data; boundary={BOUNDARY}",
             canned: dict[str, Any] | None = None) -> None:
    headers = {} if content_type is None else {"Content-Type": content_type}
    cases.append(Case(id=f"documents/{name}", route="documents", group=group, method="POST", target="/api/documents",
                      body=body, headers=headers, canned=canned or {"kind": "json", "body": "doc-1"}))


def generate_documents(cases: list[Case]) -> None:
    file_part = part("file", PDF, filename="scan.pdf", content_type="application/pdf")
    device = part("device_id", b"d1")
    full = text_fields(device_id="d1", user_email="x@example.com", kind="form", upload_id="u-1", form_id="f1", field_id="photo",
                       context='{"customer": 7}')
    doc_case(cases, "valid", multipart([device, file_part]), "valid")
    doc_case(cases, "valid-all-fields", multipart(full + [file_part]), "valid")
    doc_case(cases, "file-first", multipart([file_part, device]), "valid")
    for cname, value in [("blank", "  "), ("empty", ""), ("array", "[1]"), ("null", "null"), ("broken", "{bad"), ("number", "1"),
                         ("nested", '{"a":{"b":[1,2]}}'), ("string", '"x"'), ("dup-keys", '{"a":1,"a":2}'), ("nan", '{"a":NaN}'),
                         ("bom", "\ufeff{}"), ("trailing-space", '{"a":1} '), ("utf8", '{"k":"\u00fc"}')]:
        doc_case(cases, f"context:{cname}", multipart([device, part("context", value.encode()), file_part]), "context")
    doc_case(cases, "context-after-file", multipart([device, file_part, part("context", b"[1]")]), "context")
    for fname, filename in [
        ("plain", "scan.pdf"), ("traversal", "../../etc/passwd"), ("windows", "C:\\\\Users\\\\x\\\\a.pdf"), ("dot-suffix", "x/."),
        ("dotdot-suffix", "x/.."), ("dot", "."), ("dotdot", ".."), ("empty", ""), ("slash-end", "x/"), ("backslash-only", "\\\\"),
        ("spaces", "   "), ("escaped-quote", 'a\\"b.pdf'), ("semicolon", "a;b.pdf"), ("percent", "%C3%BC.pdf"),
        ("utf8", "\u00fcber.pdf"), ("tab", "a\tb.pdf"), ("long", "n" * 300 + ".pdf"), ("leading-slash", "/abs.pdf"),
        ("unicode-slash", "a\u2215b.pdf"), ("nul-escape", "a%00b.pdf"), ("hidden", ".hidden"), ("dots-only", "..."),
        ("backslash-dotdot", "a\\\\..")]:
        doc_case(cases, f"filename:{fname}", multipart([device, part("file", PDF, filename=filename, content_type="application/pdf")]), "filename")
    raw_dispositions = [
        ("star-only", "form-data; name=\"file\"; filename*=UTF-8''%C3%BCber.pdf"),
        ("star-and-plain", "form-data; name=\"file\"; filename=\"plain.pdf\"; filename*=UTF-8''%C3%BCber.pdf"),
        ("star-first", "form-data; name=\"file\"; filename*=UTF-8''star.pdf; filename=\"plain.pdf\""),
        ("star-latin1", "form-data; name=\"file\"; filename*=iso-8859-1''%E9t%E9.pdf"),
        ("unquoted", "form-data; name=file; filename=bare.pdf"), ("upper-type", "FORM-DATA; NAME=\"file\"; FILENAME=\"up.pdf\""),
        ("quote-unescaped", "form-data; name=\"file\"; filename=\"a\"b.pdf\""), ("single-quotes", "form-data; name='file'; filename='s.pdf'"),
        ("extra-param", "form-data; name=\"file\"; filename=\"e.pdf\"; size=3"), ("no-space", "form-data;name=\"file\";filename=\"n.pdf\""),
        ("attachment", "attachment; name=\"file\"; filename=\"att.pdf\""), ("dup-filename", "form-data; name=\"file\"; filename=\"a.pdf\"; filename=\"b.pdf\""),
        ("name-after", "form-data; filename=\"after.pdf\"; name=\"file\""),
    ]
    for dname, disposition in raw_dispositions:
        doc_case(cases, f"disposition:{dname}", multipart([device, part(None, PDF, content_type="application/pdf", disposition=disposition)]), "filename")
    latin1 = b'Content-Disposition: form-data; name="file"; filename="\xe9t\xe9.pdf"\r\nContent-Type: application/pdf\r\n\r\n' + PDF
    doc_case(cases, "filename:latin1-raw", multipart([device, latin1]), "filename")
    bad_utf8 = b'Content-Disposition: form-data; name="file"; filename="a\xff\xfe.pdf"\r\n\r\n' + PDF
    doc_case(cases, "filename:invalid-utf8-raw", multipart([device, bad_utf8]), "filename")
    for cname, ctype in [("absent", None), ("params", "image/jpeg; foo=bar"), ("upper", "IMAGE/JPEG"), ("garbage", "not a type"),
                         ("empty", ""), ("octet", "application/octet-stream")]:
        doc_case(cases, f"file-content-type:{cname}", multipart([device, part("file", PDF, filename="a.bin", content_type=ctype)]), "file-type")
    structure = {
        "dup-device": [part("device_id", b"first"), part("device_id", b"second"), file_part],
        "dup-file": [device, part("file", b"one", filename="one.pdf"), part("file", b"two", filename="two.pdf")],
        "dup-context": [device, part("context", b'{"a":1}'), part("context", b"[2]"), file_part],
        "dup-context-bad-first": [device, part("context", b"[1]"), part("context", b'{"a":1}'), file_part],
        "dup-kind": [device, part("kind", b"scan"), part("kind", b"receipt"), file_part],
        "device-empty": [part("device_id", b""), file_part], "device-missing": [file_part], "file-missing": [device],
        "file-as-text": [device, part("file", b"just text")], "file-empty": [device, part("file", b"", filename="e.pdf")],
        "device-as-file": [part("device_id", b"d1", filename="d.txt"), file_part],
        "user-email-empty": [device, part("user_email", b""), file_part], "kind-empty": [device, part("kind", b""), file_part],
        "unknown-field": [device, part("extra", b"x"), file_part], "no-name": [device, part(None, b"x"), file_part],
        "no-disposition": [device, part(None, b"x", disposition=""), file_part],
        "field-latin1": [device, part("kind", "r\u00e9\u00e7u".encode("latin-1")), file_part],
        "field-charset-header": [device, part("kind", b"caf\xe9", content_type="text/plain; charset=iso-8859-1"), file_part],
        "field-base64-cte": [device, part("kind", b"c2Nhbg==", extra="Content-Transfer-Encoding: base64\r\n"), file_part],
        "device-whitespace": [part("device_id", b"  d1  "), file_part], "device-crlf": [part("device_id", b"d1\r\n"), file_part],
        "file-with-crlf-end": [device, part("file", PDF + b"\r\n", filename="crlf.pdf")],
        "charset-field": [part("_charset_", b"iso-8859-1"), device, part("kind", b"caf\xe9"), file_part],
        "many-parts": [device] + [part(f"x{i}", b"v") for i in range(40)] + [file_part],
    }
    for sname, parts in structure.items():
        doc_case(cases, f"structure:{sname}", multipart(parts), "structure")
    valid = [device, file_part]
    framing = {
        "preamble": (multipart(valid, preamble=b"This is the preamble.\r\n"), None),
        "epilogue": (multipart(valid, epilogue=b"This is the epilogue.\r\n"), None),
        "preamble-no-crlf": (multipart(valid, preamble=b"junk"), None),
        "truncated": (multipart(valid, close=False), None),
        "truncated-mid-file": (multipart(valid)[:-200], None),
        "no-final-crlf": (multipart(valid)[:-2], None),
        "lf-only": (multipart(valid, newline=b"\n").replace(b"\r\n", b"\n"), None),
        "empty-body": (b"", None),
        "only-close": (b"--" + BOUNDARY.encode() + b"--\r\n", None),
        "boundary-mismatch": (multipart(valid, boundary="other"), None),
        "boundary-quoted": (multipart(valid), f'multipart/form-data; boundary="{BOUNDARY}"'),
        "boundary-missing": (multipart(valid), "multipart/form-data"),
        "boundary-empty": (multipart(valid), "multipart/form-data; boundary="),
        "boundary-upper-param": (multipart(valid), f"multipart/form-data; BOUNDARY={BOUNDARY}"),
        "boundary-dup": (multipart(valid), f"multipart/form-data; boundary={BOUNDARY}; boundary=zzz"),
        "boundary-special": (multipart(valid, boundary="a'()+_,-./:=? b"), "multipart/form-data; boundary=\"a'()+_,-./:=? b\""),
        "boundary-long": (multipart(valid, boundary="b" * 71), "multipart/form-data; boundary=" + "b" * 71),
        "type-upper": (multipart(valid), f"Multipart/Form-Data; boundary={BOUNDARY}"),
        "type-mixed": (multipart(valid), f"multipart/mixed; boundary={BOUNDARY}"),
        "type-json": (multipart(valid), "application/json"),
        "type-form-urlencoded": (b"device_id=d1&file=x", "application/x-www-form-urlencoded"),
        "type-absent": (multipart(valid), ""),
        "type-text": (multipart(valid), "text/plain"),
        "transport-padding": (multipart(valid).replace(f"--{BOUNDARY}\r\n".encode(), f"--{BOUNDARY}  \t\r\n".encode()), None),
        "header-folding": (multipart([part("device_id", b"d1", extra="X-Long: a\r\n b\r\n"), file_part]), None),
        "part-header-no-colon": (multipart([part("device_id", b"d1", extra="garbage\r\n"), file_part]), None),
    }
    for fname, (body, ctype) in framing.items():
        if ctype == "":
            doc_case(cases, f"framing:{fname}", body, "framing", content_type=None)
        elif ctype is None:
            doc_case(cases, f"framing:{fname}", body, "framing")
        else:
            doc_case(cases, f"framing:{fname}", body, "framing", content_type=ctype)
    for rname, ref in [("string", "doc-1"), ("int", 42), ("object-id", {"id": "x-9"}), ("object-int", {"id": 7}), ("none", None),
                       ("empty-string", ""), ("bool", True), ("float", 1.5), ("float-int", 1.0), ("list", [1]), ("object-empty-id", {"id": ""}),
                       ("object-nested", {"id": {"id": 1}}), ("object-no-id", {"ref": 1}), ("negative", -1), ("big", 2 ** 63),
                       ("huge", 2 ** 70), ("unicode", "\u00fc-\U0001F600"), ("object-bool", {"id": False}), ("object-float", {"id": 2.5}),
                       ("exp", 1e3)]:
        canned = {"kind": "ok"} if ref is None else {"kind": "json", "body": ref}
        doc_case(cases, f"reference:{rname}", multipart(valid), "reference", canned=canned)
    # A backend answering its reference as text/plain: the text is the reference, as the callback's string is.
    for rname, text in [("text", "doc-7"), ("text-number", "42"), ("text-empty", ""), ("text-quoted", '"doc-1"'),
                        ("text-unicode", "\u00fc-\U0001F600")]:
        doc_case(cases, f"reference:{rname}", multipart(valid), "reference", canned={"kind": "text", "body": text})
    doc_case(cases, "backend-409", multipart(valid), "backend-error", canned={"kind": "error", "status": 409, "detail": "dup"})
    doc_case(cases, "backend-500", multipart(valid), "backend-error", canned={"kind": "error", "status": 500, "detail": "boom"})
    limit = 25 * 1024 * 1024
    for sname, size in [("exact-limit", limit), ("over-limit", limit + 1)]:
        body = multipart([device, part("file", b"\0" * size, filename="big.bin", content_type="application/octet-stream")])
        doc_case(cases, f"size:{sname}", body, "size")


def generate_access(cases: list[Case]) -> None:
    for route in ROUTES:
        method = "GET" if route in ("widgets", "approvals") else "POST"
        body = b"" if method == "GET" else enc(BASE.get(route, {"device_id": "d1"})).encode()
        headers = {} if method == "GET" else dict(JSON_CT)
        for auth in ("none", "bad"):
            cases.append(Case(id=f"{route}/auth:{auth}", route=route, group="auth", method=method, target=f"/api/{route}",
                              body=body, headers=headers, auth=auth))
        other = "POST" if method == "GET" else "GET"
        cases.append(Case(id=f"{route}/method:{other}", route=route, group="method", method=other, target=f"/api/{route}"))
        if method == "POST":
            cases.append(Case(id=f"{route}/auth:none-malformed", route=route, group="auth", method=method, target=f"/api/{route}",
                              body=b"{", headers=dict(JSON_CT), auth="none"))


def generate(seed: int) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    generate_json_routes(cases, rng)
    generate_results(cases)
    generate_feeds(cases)
    generate_documents(cases)
    generate_access(cases)
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise SystemExit(f"differential: duplicate case id {case.id}")
        seen.add(case.id)
    return cases


# --------------------------------------------------------------------------------------------
# Keys and tokens (keys/dev: the committed dev identity provider)


def dev_material() -> tuple[dict[str, Any], str, str]:
    import jwt
    from cryptography.hazmat.primitives import serialization

    pem = (ROOT / "keys" / "dev" / "entra-dev-rsa.pem").read_bytes()
    key = serialization.load_pem_private_key(pem, password=None)
    numbers = key.public_key().public_numbers()

    def b64(n: int) -> str:
        return base64.urlsafe_b64encode(n.to_bytes((n.bit_length() + 7) // 8, "big")).rstrip(b"=").decode()

    jwks = {"keys": [{"kty": "RSA", "use": "sig", "kid": DEV_KID, "n": b64(numbers.n), "e": b64(numbers.e)}]}
    now = int(time.time())
    claims = {"aud": DEV_AUDIENCE, "iss": f"https://login.microsoftonline.com/{DEV_TENANT}/v2.0", "iat": now, "nbf": now,
              "exp": now + 3600, "sub": "dev-subject-11111111", "oid": "11111111-2222-4333-8444-555555555555", "tid": DEV_TENANT,
              "email": "dev.user@example.com", "preferred_username": "dev.user@example.com", "name": "Zo\u00eb M\u00fcller-\u0141ukasz",
              "ver": "2.0"}
    token = jwt.encode(claims, pem, algorithm="RS256", headers={"kid": DEV_KID})
    bad = jwt.encode({**claims, "aud": "someone-else"}, pem, algorithm="RS256", headers={"kid": DEV_KID})
    return jwks, token, bad


# --------------------------------------------------------------------------------------------
# Processes


class Peer:
    def __init__(self, argv: list[str], env: dict[str, str] | None, log: Path, ready_prefix: str) -> None:
        self.log = log
        self.handle = open(log, "wb")
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.handle, env=env, cwd=str(ROOT))
        deadline = time.monotonic() + 60
        self.line = ""
        while time.monotonic() < deadline:
            raw = self.process.stdout.readline()
            if not raw:
                break
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith(ready_prefix):
                self.line = line
                return
        self.stop()
        raise SystemExit(f"differential: {argv[0]} did not become ready: {log.read_text(errors='replace')[-2000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.handle.close()


def ready_port(line: str) -> int:
    return int(line.split()[1])


# --------------------------------------------------------------------------------------------
# HTTP


class Client:
    def __init__(self, port: int) -> None:
        self.port = port
        self.connection: http.client.HTTPConnection | None = None

    def send(self, method: str, target: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str], bytes]:
        for attempt in (0, 1):
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            try:
                c = self.connection
                c.putrequest(method, target, skip_accept_encoding=True)
                for name, value in headers.items():
                    c.putheader(name, value)
                if method == "POST" or body:
                    c.putheader("Content-Length", str(len(body)))
                c.endheaders(body if body else None)
                response = c.getresponse()
                data = response.read()
                head = {k.lower(): v for k, v in response.getheaders()}
                if response.will_close:
                    c.close()
                    self.connection = None
                return response.status, head, data
            except (ConnectionError, http.client.HTTPException, OSError) as error:
                if self.connection is not None:
                    self.connection.close()
                self.connection = None
                if attempt == 1 or not isinstance(error, (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)):
                    return 0, {}, repr(error).encode()
        return 0, {}, b""

    def get_json(self, target: str) -> Any:
        status, _, data = self.send("GET", target, {}, b"")
        if status != 200:
            raise SystemExit(f"differential: GET {target} answered {status}")
        return json.loads(data)


# --------------------------------------------------------------------------------------------
# Normalisation and comparison


def normal_body(head: dict[str, str], data: bytes) -> Any:
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return {"<text>": data.decode("utf-8", "replace")[:500]}


def normal_errors(body: Any) -> Any:
    """A validation answer as compared: every error's type, loc, msg and input (ctx and url dropped)."""
    if isinstance(body, dict) and isinstance(body.get("detail"), list):
        return {"detail": [{k: e.get(k) for k in ("type", "loc", "msg", "input")} if isinstance(e, dict) else e for e in body["detail"]]}
    return body


def first_difference(a: Any, b: Any, path: str = "") -> str:
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool)):
        return path or "$"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}"
            if canon(a[key]) != canon(b[key]):
                return first_difference(a[key], b[key], f"{path}.{key}")
        return path or "$"
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}[len]"
        for index, (x, y) in enumerate(zip(a, b)):
            if canon(x) != canon(y):
                return first_difference(x, y, f"{path}[{index}]")
        return path or "$"
    return path or "$"


def numbers_normalised(value: Any) -> Any:
    """3.0 and 3 as one number (booleans stay booleans): what a JSON reader sees."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: numbers_normalised(v) for k, v in value.items()}
    if isinstance(value, list):
        return [numbers_normalised(v) for v in value]
    return value


def canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def received_view(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return records


def wire_difference(case: Case, ref_records: list[dict[str, Any]], raw: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The forwarded JSON against the reference callback's model as Pydantic writes it
    (`model_dump_json(exclude_unset=True)`), when both exist: `None` when they are the same
    document (members in the same order, integers and floats apart), else both, and whether at
    least the bytes' meaning agrees once 3 and 3.0 are one number."""
    if not ref_records or not raw or case.route in ("documents", "widgets", "approvals") or "wire" not in ref_records[0]:
        return None
    text = ref_records[0]["wire"]
    if text is None:
        return None
    body = base64.b64decode(raw[0]["body_b64"])
    try:
        forwarded = json.loads(body)
    except ValueError:
        forwarded = "<not JSON>"
    expected = json.loads(text)
    if ordered(forwarded) == ordered(expected):
        return None
    return {"forwarded": body.decode("utf-8", "replace"), "reference_model": text,
            "same_numbers": canon(numbers_normalised(forwarded)) == canon(numbers_normalised(expected))}


def wire_bytes_equal(case: Case, ref_records: list[dict[str, Any]], raw: list[dict[str, Any]]) -> bool | None:
    """Whether the forwarded body is byte for byte pydantic-core's text (`None`: nothing to compare)."""
    if not ref_records or not raw or case.route in ("documents", "widgets", "approvals") or ref_records[0].get("wire") is None:
        return None
    return base64.b64decode(raw[0]["body_b64"]) == ref_records[0]["wire"].encode("utf-8")


def ordered(value: Any) -> str:
    """JSON text that keeps member order and tells 3 from 3.0 (Python reads them as int and float)."""
    return json.dumps(value, ensure_ascii=False)


def dropped_entries(case: Case, answer: Any) -> bool:
    """Whether the gateway's feed is the canned feed with entries left out (routes.md: dropped)."""
    key = case.route
    canned = case.canned.get("body")
    if not isinstance(canned, dict) or not isinstance(canned.get(key), list) or not isinstance(answer, dict):
        return False
    kept = answer.get(key)
    return isinstance(kept, list) and len(kept) < len(canned[key])


# Disagreement classes that docs/migration.md (or docs/upstream-contract.md, which its step 3 points
# to) names as intended: the reason written into differential_expected.json by --write-expected.
DOCUMENTED = {
    "feed-invalid-entry-dropped": "documented (migration.md step 3): the gateway drops an invalid feed entry and the rest "
                                  "arrives; the reference fails the whole feed (500)",
    "invalid-upstream-answer-502": "documented (upstream-contract.md, Errors; migration.md step 3): an upstream answer that "
                                   "does not validate is answered 502; the reference's callback result fails its models (500)",
    "upstream-5xx-becomes-502": "documented (upstream-contract.md, Errors): an upstream 5xx reaches the app as 502",
    "authenticates-before-body": "documented (upstream-contract.md): the gateway answers 401 before it reads the body; "
                                 "the reference decodes the JSON body before its auth dependency runs",
    "text-field-as-file-422": "documented (migration.md step 3): a text field sent as a file part is missing for the "
    "gateway (422 missing); the reference reports it as string_type with its upload object as the input",
    "documents-multipart-only-422": "documented (migration.md step 3): documents are read as multipart/form-data only; "
    "a form-urlencoded body gets 422 missing for both fields, the reference a value_error for its `file` string",
    "not-utf8-422": "documented (migration.md step 3): a body that is not UTF-8 gets 422 (json_invalid), one status for "
                    "every body the models cannot read; the reference answers 400",
    "first-file-part-is-the-upload": "documented (migration.md step 3): the first file part is the upload and streams "
                                     "to the backend; the reference keeps the last",
    "strict-json-422": "documented (migration.md step 3): duplicate JSON keys and NaN are refused with 422 (here in the "
                       "document's `context`); the reference keeps the last key and reads NaN",
    "boundary-over-70-refused": "documented (migration.md step 3): a multipart boundary longer than RFC 2046's 70 "
                                "characters is refused with the reference's 400 for an unusable boundary; the reference "
                                "accepts it",
    "non-finite-number-422": "documented (migration.md step 3): NaN, Infinity and numbers beyond a double (1e400) are "
                             "refused with 422; the reference reads them and then fails to render its answer (500)",
    "null-result-is-default": "documented (migration.md step 3): a result answered as JSON null is the route's default "
                              "result, as a callback's None is (a FastAPI endpoint returning None answers null); the "
                              "reference's result model refuses null (500)",
    "news-channel-kept": "documented (migration.md step 3): a news item's `channel` string is kept for the app, which "
                         "reads it (a `channel` that is not a string makes the item invalid); the reference's model "
                         "drops the key",
}


# Cases whose input the gateway refuses on purpose (docs/migration.md, "Where the gateway answers
# differently"), named by the mutation in their id; whatever the classification, the refusal is it.
DOCUMENTED_INPUTS = [
    (re.compile(r"dup-key|pairs-dup|context:dup-keys"),
     "documented (migration.md step 3): duplicate JSON keys are refused with 422; the reference keeps the last"),
    (re.compile(r"raw-NaN|raw-Infinity|raw-1e400|context:nan"),
     "documented (migration.md step 3): NaN, Infinity and out-of-range literals are refused with 422; the reference "
     "reads them or fails rendering its error (500)"),
    (re.compile(r"lone-surrogate"),
     "documented (migration.md step 3): a lone surrogate escape is refused with 422; the reference keeps it in the string"),
    (re.compile(r"numstr-inf|numstr-neg-inf|numstr-nan|inf-str|nan-str"),
     "documented (migration.md step 3): a float that reads as infinite or NaN is refused (finite_number); JSON cannot "
     "carry it to the backend or the app"),
    (re.compile(r"deep-nesting"),
     "documented (migration.md step 3): JSON nested deeper than 128 levels is refused with 422"),
    (re.compile(r"maxVisible:big"),
     "documented (migration.md step 3): an integer beyond 64 bits is refused (int_parsing_size); the reference keeps it"),
]


def gateway_issue_mentions(gw: dict[str, Any], text: str) -> bool:
    detail = gw["body"].get("detail") if isinstance(gw["body"], dict) else None
    return isinstance(detail, list) and any(text in json.dumps(e) for e in detail)


def reason_for(entry: dict[str, Any]) -> str:
    label = entry["classification"].split(":")[0]
    if label in DOCUMENTED:
        return DOCUMENTED[label]
    if entry["route"] != "documents" or "context:" in entry["id"]:
        for pattern, reason in DOCUMENTED_INPUTS:
            if pattern.search(entry["id"]):
                return reason
    return f"open: {entry['classification']}"


def classify(case: Case, ref: dict[str, Any], gw: dict[str, Any], aspects: list[str], raw: list[dict[str, Any]]) -> str:
    rs, gs = ref["status"], gw["status"]
    if case.id.endswith("/result:null-json") and rs == 500 and gs == 200:
        return "null-result-is-default"
    if case.id.startswith("widgets/news.channel:") and rs == gs == 200 and aspects == ["body"]:
        return "news-channel-kept"
    if case.id == "documents/structure:dup-file" and aspects == ["received"]:
        return "first-file-part-is-the-upload"
    if case.id in ("documents/context:dup-keys", "documents/context:nan") and gs == 422:
        return "strict-json-422"
    if case.id == "documents/framing:boundary-long" and rs == 200 and gs == 400:
        return "boundary-over-70-refused"
    if case.id == "documents/structure:device-as-file" and rs == gs == 422:
        return "text-field-as-file-422"
    if case.id == "documents/framing:type-form-urlencoded" and rs == gs == 422:
        return "documents-multipart-only-422"
    if "status" in aspects:
        if case.canned.get("kind") == "error" and case.canned.get("status", 0) >= 500 and gs == 502:
            return "upstream-5xx-becomes-502"
        if rs == 500 and case.route in ("widgets", "approvals") and gs == 200 and dropped_entries(case, gw["body"]):
            return "feed-invalid-entry-dropped"
        if rs == 500 and gs == 502:
            return "invalid-upstream-answer-502"
        if rs == 500 and 200 <= gs < 300:
            return "gateway-accepts-answer-reference-refuses"
        if 200 <= rs < 300 and gs == 502:
            return "gateway-refuses-answer-reference-accepts"
        if 200 <= rs < 300 and gs in (400, 422):
            return f"gateway-stricter-{gs}"
        if rs in (400, 422) and 200 <= gs < 300:
            if raw and any(r.get("inner_status") not in (None,) and not 200 <= (r.get("inner_status") or 0) < 300 for r in raw):
                return "gateway-laxer-forwarded-body-reference-rejects"
            return "gateway-laxer"
        if case.auth != "token" and gs == 401 and rs == 422:
            return "authenticates-before-body"
        if rs == 400 and gs == 422 and (gateway_issue_mentions(gw, "ill-formed UTF-8")
                                        or any(m in case.id for m in ("invalid-utf8", "latin1-bytes"))):
            return "not-utf8-422"
        if rs == 500 and gs == 422 and case.canned.get("kind") == "ok" \
                and any(m in case.id for m in ("raw-Infinity", "raw-NaN", "raw-1e400")):
            return "non-finite-number-422"
        if rs == 500 and gs in (400, 422) and case.canned.get("kind") == "ok":
            return "reference-fails-500-gateway-refuses"
        return f"status-{rs}-vs-{gs}"
    if "body" in aspects:
        rb, gb = ref["body"], gw["body"]
        if rs == 422 and isinstance(rb, dict) and isinstance(gb, dict) and isinstance(rb.get("detail"), list) and isinstance(gb.get("detail"), list):
            rl = [tuple(e.get("loc") or []) for e in rb["detail"] if isinstance(e, dict)]
            gl = [tuple(e.get("loc") or []) for e in gb["detail"] if isinstance(e, dict)]
            if sorted(map(str, rl)) != sorted(map(str, gl)):
                return "422-detail-locations"
            if rl != gl:
                return "422-detail-order"
            if [e.get("type") for e in rb["detail"]] != [e.get("type") for e in gb["detail"]]:
                return "422-detail-types"
            if [e.get("msg") for e in rb["detail"]] != [e.get("msg") for e in gb["detail"]]:
                return "422-detail-messages"
            return "422-detail-inputs"
        if rs == 422:
            return "422-detail-shape"
        if 200 <= rs < 300:
            key = case.route
            if case.route in ("widgets", "approvals") and isinstance(rb, dict) and isinstance(gb, dict) \
                    and isinstance(rb.get(key), list) and isinstance(gb.get(key), list) and len(gb[key]) < len(rb[key]):
                return "feed-entry-dropped-reference-keeps"
            if canon(numbers_normalised(rb)) == canon(numbers_normalised(gb)):
                return "answer-number-format:" + first_difference(rb, gb)
            return "answer-differs:" + first_difference(numbers_normalised(rb), numbers_normalised(gb))
        return f"error-body-{rs}"
    if "received" in aspects:
        return "received-differs:" + first_difference(ref["received"], gw["received"])
    if "wire" in aspects:
        return "wire-differs"
    return "agree"


def portable(value: Any) -> Any:
    """Strict JSON for any reader: non-finite numbers and lone surrogates become marked text."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return f"<{value}>"
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {portable(k): portable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [portable(v) for v in value]
    return value


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    cases = generate(args.seed)
    if args.only:
        cases = [c for c in cases if c.route in args.only.split(",")]
    if args.list:
        for case in cases:
            print(case.id)
        return 0
    jwks, token, bad_token = dev_material()
    scratch = Path(tempfile.mkdtemp(prefix="differential-"))
    (scratch / "jwks.json").write_text(json.dumps(jwks))
    (scratch / "cases.json").write_text(json.dumps({c.id: c.canned for c in cases}))
    python = sys.executable
    peers: list[Peer] = []
    try:
        jwks_peer = Peer(["/usr/bin/python3", str(PEERS / "jwks_server.py"), "--document", str(scratch / "jwks.json")], None,
                         scratch / "jwks.log", "READY ")
        peers.append(jwks_peer)
        reference = Peer([python, str(PEERS / "reference_app.py"), "--mode", "reference", "--cases", str(scratch / "cases.json"),
                          "--jwks", str(scratch / "jwks.json")], None, scratch / "reference.log", "READY ")
        peers.append(reference)
        upstream = Peer([python, str(PEERS / "reference_app.py"), "--mode", "upstream", "--cases", str(scratch / "cases.json")],
                        None, scratch / "upstream.log", "READY ")
        peers.append(upstream)
        env = {"PATH": "/usr/bin:/bin", "LISTEN": "127.0.0.1:0", "ADMIN_LISTEN": "127.0.0.1:0", "ACCESS_LOG": "false",
               "UPSTREAM_URL": f"http://127.0.0.1:{ready_port(upstream.line)}", "EVENT_LOOPS": "1",
               "ENTRA_TENANT_ID": DEV_TENANT, "ENTRA_AUDIENCE": DEV_AUDIENCE,
               "ENTRA_JWKS_URL": f"http://127.0.0.1:{ready_port(jwks_peer.line)}/keys",
               "SESSION_SECRET": SESSION_SECRET, "SESSION_SECURE": "false"}
        gateway = Peer([args.gateway, "serve"], env, scratch / "gateway.log", "app-native-gateway ready ")
        peers.append(gateway)
        listen = next(p.split("=", 1)[1] for p in gateway.line.split() if p.startswith("listen="))
        ref_client, gw_client = Client(ready_port(reference.line)), Client(int(listen.rsplit(":", 1)[1]))
        answers: dict[str, dict[str, Any]] = {}
        for case in cases:
            headers = dict(case.headers)
            headers["X-Diff-Case"] = case.id
            if case.auth == "token":
                headers["Authorization"] = "Bearer " + token
            elif case.auth == "bad":
                headers["Authorization"] = "Bearer " + bad_token
            results = {}
            for side, client in (("reference", ref_client), ("gateway", gw_client)):
                status, head, data = client.send(case.method, case.target, headers, case.body)
                results[side] = {"status": status, "body": normal_errors(normal_body(head, data))}
            answers[case.id] = results
            if time.monotonic() - started > args.time_limit:
                raise SystemExit(f"differential: over the time limit of {args.time_limit} s")
        ref_records = ref_client.get_json("/_diff/records")
        up_records = Client(ready_port(upstream.line)).get_json("/_diff/records")
    finally:
        for peer in reversed(peers):
            peer.stop()

    report_cases = []
    wire_bytes: dict[str, tuple[int, int]] = {}
    per_route: dict[str, dict[str, int]] = {r: {"cases": 0, "agree": 0, "disagree": 0, "status": 0, "body": 0, "received": 0, "wire": 0} for r in ROUTES}
    for case in cases:
        ref, gw = answers[case.id]["reference"], answers[case.id]["gateway"]
        ref["received"] = received_view(ref_records["records"].get(case.id, []))
        gw["received"] = received_view(up_records["records"].get(case.id, []))
        raw = up_records["raw"].get(case.id, [])
        aspects = []
        if ref["status"] != gw["status"]:
            aspects.append("status")
        if canon(ref["body"]) != canon(gw["body"]):
            aspects.append("body")
        if canon(ref["received"]) != canon(gw["received"]):
            aspects.append("received")
        wire = wire_difference(case, ref["received"], raw)
        if wire is not None:
            aspects.append("wire")
        exact = wire_bytes_equal(case, ref["received"], raw)
        if exact is not None:
            wire_bytes[case.route] = wire_bytes.get(case.route, (0, 0))
            same, compared = wire_bytes[case.route]
            wire_bytes[case.route] = (same + (1 if exact else 0), compared + 1)
        figures = per_route[case.route]
        figures["cases"] += 1
        for aspect in aspects:
            figures[aspect] += 1
        if aspects:
            figures["disagree"] += 1
        else:
            figures["agree"] += 1
        if aspects or wire is not None:
            entry = {"id": case.id, "route": case.route, "group": case.group, "aspects": aspects,
                     "classification": classify(case, ref, gw, aspects, raw) if aspects else None,
                     "request": {"method": case.method, "target": case.target, "content_type": case.headers.get("Content-Type"),
                                 "body": case.body[:600].decode("utf-8", "replace") if len(case.body) < 100_000 else f"<{len(case.body)} bytes>",
                                 "canned": case.canned if case.canned.get("kind") != "ok" else None},
                     "reference": ref, "gateway": gw}
            if raw:
                entry["forwarded"] = [{k: v for k, v in r.items() if k != "body_b64"} | {"body_length": len(base64.b64decode(r["body_b64"]))} for r in raw]
            if wire is not None:
                entry["wire"] = wire
            report_cases.append(entry)
    totals = {k: sum(f[k] for f in per_route.values()) for k in ("cases", "agree", "disagree", "status", "body", "received", "wire")}
    classes: dict[str, int] = {}
    for entry in report_cases:
        if entry["classification"]:
            classes[entry["classification"].split(":")[0]] = classes.get(entry["classification"].split(":")[0], 0) + 1
    report = {"seed": args.seed, "requests": 2 * len(cases), "seconds": round(time.monotonic() - started, 1), "routes": per_route,
              "totals": totals, "classes": dict(sorted(classes.items(), key=lambda kv: -kv[1])),
              "disagreements": [e for e in report_cases if e["aspects"]], "wire_only": [e for e in report_cases if not e["aspects"]],
              # Every case's two statuses (0: the connection failed before an answer).
              "statuses": {c.id: [answers[c.id]["reference"]["status"], answers[c.id]["gateway"]["status"]] for c in cases}}
    Path(args.report).write_text(json.dumps(portable(report), indent=1, ensure_ascii=False, allow_nan=False, default=str))
    print(f"{'route':<22}{'cases':>7}{'agree':>7}{'disagree':>9}{'status':>8}{'body':>6}{'recv':>6}{'wire':>6}")
    for route in ROUTES + ["total"]:
        f = totals if route == "total" else per_route[route]
        print(f"{route:<22}{f['cases']:>7}{f['agree']:>7}{f['disagree']:>9}{f['status']:>8}{f['body']:>6}{f['received']:>6}{f['wire']:>6}")
    print("wire: the forwarded JSON is not the reference callback's model as Pydantic writes it (model_dump_json, exclude_unset)")
    same = sum(v[0] for v in wire_bytes.values())
    compared = sum(v[1] for v in wire_bytes.values())
    print(f"forwarded JSON byte for byte pydantic-core's model_dump_json: {same} of {compared}")
    report["wire_bytes"] = {"same": same, "compared": compared, "routes": {k: list(v) for k, v in wire_bytes.items()}}
    Path(args.report).write_text(json.dumps(portable(report), indent=1, ensure_ascii=False, allow_nan=False, default=str))
    print(f"{2 * len(cases)} requests in {report['seconds']} s; report: {args.report}")
    if args.write_expected:
        expected = {
            "reference": "bmsdna-app-native 0.6.0",
            "seed": args.seed,
            "about": "Every disagreement of Tests/Peers/differential.py with the reference, by case id. "
                     "ReferenceDifferentialTests fails on a disagreement not listed here and on a listed case that now agrees.",
            "disagreements": [{"id": e["id"], "reason": reason_for(e)} for e in report["disagreements"]],
        }
        Path(args.write_expected).write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gateway", help="the app-native-gateway executable")
    parser.add_argument("--report", default="differential-report.json")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--only", help="comma-separated routes")
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--list", action="store_true", help="print the case ids and exit")
    parser.add_argument("--write-expected", help="write the run's disagreements as a known-disagreements list to FILE "
                        "(reasons from the classification; review before committing)")
    args = parser.parse_args()
    if not args.list and not args.gateway:
        parser.error("--gateway is required")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
