#!/usr/bin/env python3
"""Sends notifications with aioapns (the Python reference's APNs transport, PyPI) to the fake
APNs server. TEST AND BENCHMARK ONLY. Runs in the PyPI tools venv (.build/python-tools, made by
scripts/install-python-tools.sh), which has aioapns and its PyJWT.

Payloads and headers are built the way the Python reference builds them (docs/contract/apns.md §1
and §2: the send functions' builders, and the headers each one sets), then handed to aioapns
unchanged, so what reaches the fake is what the reference would send.

aioapns has no base-URL option: its connection pool connects to the protocol class's
APNS_SERVER:APNS_PORT (api.push.apple.com / api.development.push.apple.com, 443). The one
monkeypatch here sets those two class attributes to the fake's address; TLS is aioapns's own,
with an ssl_context (its public parameter) that trusts keys/test/ca.pem. aioapns speaks TLS only
(no h2c), so the fake must run with --cert.

  send   --cases FILE   one case per list element (below); prints one JSON line per case:
                        {"token", "status", "reason"} in the order given.
  bench  --count N --token T [--concurrency C]
                        N identical alert pushes (the benchmark payload), C in flight at once;
                        prints {"count", "sent", "seconds", "pushes_per_second"}.

A case: {"kind": K, "token": hex, "args": {...}, "collapse_id"?: str, "expiration"?: unix s}.
K and args follow the reference's send functions (docs/contract/apns.md §1, §2):
  alert          title, body, data?, interruption_level?        (path and actions travel in data)
  critical       webapp_id, title, body, acknowledge_label?="Got it", volume?=1.0, data?
  silent         data?
  widgets        webapp_id, widgets? (null: refresh flag)
  approvals      webapp_id
  live_start     state, attributes, alert_title?, alert_body?, stale_at?
  live_update    state, alert_title?, alert_body?, stale_at?, priority?=10
  live_end       state?, dismiss_at?
`state` is the LiveActivityState already encoded (docs/contract/models.md §5), `widgets` the feed encoding.
"""
import argparse
import asyncio
import json
import ssl
import sys
import time
import uuid

import aioapns
import aioapns.connection
from aioapns import APNs, NotificationRequest, PushType

MAX_INLINE_WIDGETS_BYTES = 3500
BENCH_PAYLOAD = {"aps": {"alert": {"title": "Benchmark", "body": "One push of many"}, "sound": "default"}}


# --- payload builders, as the reference's (docs/contract/apns.md §1) --------------------------

def merge_data(payload, data):
    if data:
        if "aps" in data:  # the reference's trap (§1.1): refused here as the port refuses it
            raise ValueError("data must not hold aps")
        payload.update(data)
    return payload


def build_alert(title, body, data=None, interruption_level=None, critical_volume=1.0):
    aps = {"alert": {"title": title, "body": body}, "sound": "default"}
    if interruption_level:
        aps["interruption-level"] = interruption_level
        if interruption_level == "critical":
            volume = 1.0 if critical_volume != critical_volume else max(0.0, min(1.0, float(critical_volume)))
            aps["sound"] = {"critical": 1, "name": "default", "volume": volume}
    return merge_data({"aps": aps}, data)


def build_critical(webapp_id, title, body, acknowledge_label="Got it", volume=1.0, data=None):
    merged = dict(data or {})
    merged["webapp_id"] = webapp_id
    if acknowledge_label:
        merged["ack_label"] = acknowledge_label
    return build_alert(title, body, merged, "critical", volume)


def build_silent(data=None):
    return merge_data({"aps": {"content-available": 1}}, data)


def build_widgets(webapp_id, widgets=None):
    base = {"aps": {"content-available": 1}, "webapp_id": webapp_id}
    if widgets is not None:
        inline = dict(base, widgets=widgets)
        compact = json.dumps(inline, separators=(",", ":"), ensure_ascii=False).encode()
        if len(compact) <= MAX_INLINE_WIDGETS_BYTES:
            return inline
    return dict(base, widgets_refresh=True)


def build_approvals(webapp_id):
    return {"aps": {"content-available": 1}, "webapp_id": webapp_id, "approvals_refresh": True}


def build_live_activity_message(event, state=None, alert_title=None, alert_body=None, stale_at=None,
                                dismiss_at=None, timestamp=None):
    if event == "update" and state is None:
        raise ValueError("update needs a state")
    aps = {"timestamp": timestamp or int(time.time()), "event": event}
    if state is not None:
        aps["content-state"] = state
    if alert_title:
        aps["alert"] = {"title": alert_title, "body": alert_body or ""}
    if stale_at is not None:
        aps["stale-date"] = int(stale_at)
    if dismiss_at is not None:
        aps["dismissal-date"] = int(dismiss_at)
    return {"aps": aps}


def build_live_start(state, attributes, alert_title=None, alert_body=None, stale_at=None):
    aps = {"timestamp": int(time.time()), "event": "start", "content-state": state,
           "attributes-type": "WebAppActivityAttributes", "attributes": attributes}
    if alert_title:
        aps["alert"] = {"title": alert_title, "body": alert_body or ""}
    else:
        aps["alert"] = {"title": state["title"], "body": state.get("subtitle") or ""}
    if stale_at is not None:
        aps["stale-date"] = int(stale_at)
    return {"aps": aps}


def build(case, bundle_id):
    """(payload, push_type, priority, topic) of one case, with the reference's headers (§2)."""
    kind, args = case["kind"], case.get("args", {})
    live = bundle_id + ".push-type.liveactivity"
    if kind == "alert":
        return build_alert(args["title"], args["body"], args.get("data"), args.get("interruption_level")), None, None, bundle_id
    if kind == "critical":
        return build_critical(args["webapp_id"], args["title"], args["body"], args.get("acknowledge_label", "Got it"),
                              args.get("volume", 1.0), args.get("data")), None, None, bundle_id
    if kind == "silent":
        return build_silent(args.get("data")), PushType.BACKGROUND, 5, bundle_id
    if kind == "widgets":
        return build_widgets(args["webapp_id"], args.get("widgets")), PushType.BACKGROUND, 5, bundle_id
    if kind == "approvals":
        return build_approvals(args["webapp_id"]), PushType.BACKGROUND, 5, bundle_id
    if kind == "live_start":
        return build_live_start(args["state"], args["attributes"], args.get("alert_title"), args.get("alert_body"),
                                args.get("stale_at")), PushType.LIVEACTIVITY, 10, live
    if kind == "live_update":
        return build_live_activity_message("update", args["state"], args.get("alert_title"), args.get("alert_body"),
                                           args.get("stale_at")), PushType.LIVEACTIVITY, args.get("priority", 10), live
    if kind == "live_end":
        return build_live_activity_message("end", args.get("state"), dismiss_at=args.get("dismiss_at")), \
            PushType.LIVEACTIVITY, 10, live
    raise ValueError(f"unknown kind {kind}")


# --- transport --------------------------------------------------------------------------------

def point_at(host, port):
    """The monkeypatch: aioapns connects to APNS_SERVER:APNS_PORT of its protocol class."""
    for name in ("APNsProductionClientProtocol", "APNsDevelopmentClientProtocol"):
        cls = getattr(aioapns.connection, name)
        cls.APNS_SERVER = host
        cls.APNS_PORT = port


def client(args):
    context = ssl.create_default_context(cafile=args.ca_file)
    # aioapns sends the HTTP/2 preface without ALPN; servers that pick the protocol by ALPN
    # (nginx, the benchmark's stand-in) need it offered. The fake accepts either.
    context.set_alpn_protocols(["h2"])
    with open(args.key_file) as handle:
        key = handle.read()
    return APNs(key=key, key_id=args.key_id, team_id=args.team_id, topic=args.bundle_id, use_sandbox=True,
                ssl_context=context, max_connections=1, max_connection_attempts=2)


async def send_cases(args):
    with open(args.cases) as handle:
        cases = json.load(handle)
    apns = client(args)
    for case in cases:
        payload, push_type, priority, topic = build(case, args.bundle_id)
        expiration = case.get("expiration")
        request = NotificationRequest(
            device_token=case["token"], message=payload, notification_id=str(uuid.uuid4()),
            # aioapns takes a time to live and sends now + ttl as apns-expiration
            time_to_live=None if expiration is None else expiration - int(time.time()),
            priority=priority, collapse_key=case.get("collapse_id"), push_type=push_type,
            apns_topic=topic)  # the reference's live_activity_topic() per request (4.0 has apns_topic)
        result = await apns.send_notification(request)
        print(json.dumps({"token": case["token"], "status": int(result.status),
                          "reason": result.description}), flush=True)


async def bench(args):
    apns = client(args)
    semaphore = asyncio.Semaphore(args.concurrency)
    sent = 0

    async def one():
        nonlocal sent
        async with semaphore:
            request = NotificationRequest(device_token=args.token, message=BENCH_PAYLOAD,
                                          priority=10, push_type=PushType.ALERT)
            result = await apns.send_notification(request)
            if result.is_successful:
                sent += 1

    # one push first: the connection and the provider token are not part of the measurement
    await one()
    sent = 0
    start = time.monotonic()
    await asyncio.gather(*(one() for _ in range(args.count)))
    seconds = time.monotonic() - start
    print(json.dumps({"count": args.count, "sent": sent, "seconds": round(seconds, 3),
                      "pushes_per_second": round(args.count / seconds, 1)}), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["send", "bench"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca-file", required=True, help="trust anchor of the fake's certificate")
    parser.add_argument("--key-file", required=True, help="the APNs .p8 key")
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--cases")
    parser.add_argument("--count", type=int, default=10000)
    parser.add_argument("--token")
    parser.add_argument("--concurrency", type=int, default=100)
    args = parser.parse_args()
    point_at(args.host, args.port)
    if args.mode == "send":
        asyncio.run(send_cases(args))
    else:
        asyncio.run(bench(args))


if __name__ == "__main__":
    sys.exit(main())
