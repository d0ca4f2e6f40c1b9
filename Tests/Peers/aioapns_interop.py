#!/usr/bin/env python3
"""Interoperability peer: the Python reference's transport (aioapns 4.0, PyPI) sends notifications
to the fake APNs server. TEST ONLY. Needs a Python with aioapns (scripts/install-deps.sh makes one).

The payloads are built here by a Python transcription of the reference's builders
(contract/apns.md §1), independently of the Swift code, and sent with the headers of §2. The
Swift test sends the same cases with APNsSender and compares what the fake recorded, key by key.

Usage: aioapns_interop.py --port P --ca CA --key-file K --key-id I --team-id T --bundle-id B CASES.json
CASES.json: [{"token": hex, "kind": …, "args": {…}}…]. Prints one JSON line per case:
{"token", "sent", "reason"}.
"""
import argparse
import asyncio
import json
import math
import ssl
import sys
import uuid

from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsDevelopmentClientProtocol

MAX_INLINE_WIDGETS_BYTES = 3500


def merge(payload, data):
    for key, value in (data or {}).items():
        if key == "aps":
            raise ValueError("aps in data")
        payload[key] = value
    return payload


def alert_payload(title, body, data=None, interruption_level=None, critical_volume=1.0):
    aps = {"alert": {"title": title, "body": body}, "sound": "default"}
    if interruption_level:
        aps["interruption-level"] = interruption_level
        if interruption_level == "critical":
            volume = 1.0 if math.isnan(critical_volume) else max(0.0, min(1.0, critical_volume))
            aps["sound"] = {"critical": 1, "name": "default", "volume": volume}
    return merge({"aps": aps}, data)


def critical_payload(webapp_id, title, body, acknowledge_label="Got it", volume=1.0, data=None):
    merged = dict(data or {})
    merged["webapp_id"] = webapp_id
    if acknowledge_label:
        merged["ack_label"] = acknowledge_label
    return alert_payload(title, body, merged, "critical", volume)


def widgets_payload(webapp_id, widgets=None):
    base = {"aps": {"content-available": 1}, "webapp_id": webapp_id}
    if widgets is not None:
        inline = dict(base, widgets=widgets)
        if len(json.dumps(inline, separators=(",", ":"), ensure_ascii=False).encode()) <= MAX_INLINE_WIDGETS_BYTES:
            return inline
    return dict(base, widgets_refresh=True)


def live_activity_message(event, timestamp, state=None, alert_title=None, alert_body=None, stale_at=None, dismiss_at=None):
    if event == "update" and state is None:
        raise ValueError("update needs state")
    aps = {"timestamp": timestamp, "event": event}
    if state is not None:
        aps["content-state"] = state
    if alert_title:
        aps["alert"] = {"title": alert_title, "body": alert_body or ""}
    if stale_at is not None:
        aps["stale-date"] = int(stale_at)
    if dismiss_at is not None:
        aps["dismissal-date"] = int(dismiss_at)
    return {"aps": aps}


def live_activity_start(timestamp, state, attributes, alert_title=None, alert_body=None, stale_at=None):
    aps = {"timestamp": timestamp, "event": "start", "content-state": state,
           "attributes-type": "WebAppActivityAttributes", "attributes": attributes}
    if alert_title:
        aps["alert"] = {"title": alert_title, "body": alert_body or ""}
    else:
        aps["alert"] = {"title": state["title"], "body": state.get("subtitle") or ""}
    if stale_at is not None:
        aps["stale-date"] = int(stale_at)
    return {"aps": aps}


def build(kind, args, bundle):
    """(payload, push_type, priority, topic) as the reference's send functions do (§2)."""
    live = bundle + ".push-type.liveactivity"
    if kind == "alert":
        return alert_payload(**args), None, None, bundle
    if kind == "critical":
        return critical_payload(**args), None, None, bundle
    if kind == "silent":
        return merge({"aps": {"content-available": 1}}, args.get("data")), PushType.BACKGROUND, 5, bundle
    if kind == "widgets":
        return widgets_payload(**args), PushType.BACKGROUND, 5, bundle
    if kind == "approvals":
        return ({"aps": {"content-available": 1}, "webapp_id": args["webapp_id"], "approvals_refresh": True},
                PushType.BACKGROUND, 5, bundle)
    if kind == "live_activity_update":
        priority = args.pop("priority", 10)
        return live_activity_message("update", **args), PushType.LIVEACTIVITY, priority, live
    if kind == "live_activity_end":
        return live_activity_message("end", **args), PushType.LIVEACTIVITY, 10, live
    if kind == "live_activity_start":
        return live_activity_start(**args), PushType.LIVEACTIVITY, 10, live
    raise ValueError(kind)


async def main():
    parser = argparse.ArgumentParser()
    for name in ("--port", "--ca", "--key-file", "--key-id", "--team-id", "--bundle-id"):
        parser.add_argument(name, required=True)
    parser.add_argument("cases")
    args = parser.parse_args()
    # aioapns connects to Apple's host; point its sandbox protocol at the fake instead.
    APNsDevelopmentClientProtocol.APNS_SERVER = "127.0.0.1"
    APNsDevelopmentClientProtocol.APNS_PORT = int(args.port)
    context = ssl.create_default_context(cafile=args.ca)
    context.set_alpn_protocols(["h2"])
    with open(args.key_file) as handle:
        key = handle.read()
    client = APNs(key=key, key_id=args.key_id, team_id=args.team_id, topic=args.bundle_id, use_sandbox=True,
                  ssl_context=context)
    with open(args.cases) as handle:
        cases = json.load(handle)
    for case in cases:
        payload, push_type, priority, topic = build(case["kind"], dict(case["args"]), args.bundle_id)
        request = NotificationRequest(device_token=case["token"], message=payload, notification_id=str(uuid.uuid4()),
                                      priority=priority, push_type=push_type, apns_topic=topic)
        response = await client.send_notification(request)
        print(json.dumps({"token": case["token"], "sent": response.is_successful, "reason": response.description}),
              flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
