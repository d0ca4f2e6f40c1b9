#!/usr/bin/env python3
"""The Python reference's own session cookie (bmsdna-app-native 0.6.0, `SignedSessionCookie`), for the
interoperability tests of docs/migration.md step 1. Runs in .build/reference-venv
(scripts/install-reference.sh).

issue  the reference issues a cookie for a user (its `issue()` on a response); prints the value
read   the reference reads a `Cookie` header carrying the value (its `read()` on a request); prints
       {"user": {...}} or {"user": null}
"""
import argparse
import json
import sys
from http.cookies import SimpleCookie

from bmsdna.app_native.entra import EntraUser, SignedSessionCookie
from fastapi import Response
from starlette.requests import Request


def main() -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    issue = sub.add_parser("issue")
    issue.add_argument("--secret", required=True)
    issue.add_argument("--name", default="bms_session")
    issue.add_argument("--oid", required=True)
    issue.add_argument("--email", required=True)
    issue.add_argument("--tenant", required=True)
    read = sub.add_parser("read")
    read.add_argument("--secret", required=True)
    read.add_argument("--name", default="bms_session")
    read.add_argument("--cookie", required=True)
    args = parser.parse_args()

    store = SignedSessionCookie(secret=args.secret, name=args.name, secure=False)
    if args.command == "issue":
        response = Response()
        store.issue(response, EntraUser(oid=args.oid, email=args.email, tenant_id=args.tenant))
        jar = SimpleCookie()
        jar.load(response.headers["set-cookie"])
        print(jar[args.name].value)
    else:
        request = Request({"type": "http", "headers": [(b"cookie", f"{args.name}={args.cookie}".encode())]})
        user = store.read(request)
        print(json.dumps({"user": None if user is None else {
            "oid": user.oid, "email": user.email, "tenant_id": user.tenant_id, "name": user.name,
        }}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
