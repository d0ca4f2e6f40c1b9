"""Starts oidc-provider-mock (PyPI) on 127.0.0.1, port 0 unless --port says otherwise, and prints
one JSON line once it listens:

    {"ready": true, "port": 41234, "issuer": "http://127.0.0.1:41234",
     "discovery_url": "http://127.0.0.1:41234/.well-known/openid-configuration", "users": ["…", …]}

Users are offered as one-click buttons on its authorize page (`<button name="sub" value="SUB">`,
posting back to the authorize URL with its query). Without --user-claims, two users shaped like
Entra ID's: one of the dev tenant and one of another tenant. The provider takes its issuer from
the request's Host, so every party must reach it as 127.0.0.1:PORT (never `localhost`).

    .build/python-tools/bin/python Tests/Peers/oidc_mock.py [--port N] [--user-claims JSON]... [--require-nonce]
"""

import argparse
import json
import os
import sys

DEV_TENANT = "d0d0d0d0-0000-4000-8000-00000000de01"
OTHER_TENANT = "e0e0e0e0-0000-4000-8000-0000000000e2"

DEFAULT_USERS = [
    {
        "sub": "mock-zoe",
        "tid": DEV_TENANT,
        "oid": "44444444-5555-4666-8777-888888888888",
        "email": "zoe.mock@example.com",
        "preferred_username": "zoe.mock@example.com",
        "name": "Zoë Mock",
    },
    {
        "sub": "mock-other-tenant",
        "tid": OTHER_TENANT,
        "oid": "55555555-6666-4777-8888-999999999999",
        "email": "someone@other-tenant.example.net",
        "preferred_username": "someone@other-tenant.example.net",
        "name": "Someone Else",
    },
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--user-claims", action="append", default=[], help="a user as JSON, with sub")
    parser.add_argument("--require-nonce", action="store_true")
    arguments = parser.parse_args()

    # The provider refuses plain http unless told otherwise (authlib); it only listens on loopback here.
    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"
    import werkzeug.serving
    from oidc_provider_mock import app
    from oidc_provider_mock._storage import User

    claims_list = [json.loads(text) for text in arguments.user_claims] or DEFAULT_USERS
    users = []
    for claims in claims_list:
        if not isinstance(claims, dict) or not isinstance(claims.get("sub"), str):
            print("every --user-claims must be a JSON object with a string sub", file=sys.stderr)
            return 2
        users.append(User(sub=claims["sub"], claims={k: v for k, v in claims.items() if k != "sub"}))

    application = app(require_nonce=arguments.require_nonce, user_claims=users)
    server = werkzeug.serving.make_server("127.0.0.1", arguments.port, application, threaded=True)
    port = server.server_port
    issuer = f"http://127.0.0.1:{port}"
    ready = {
        "ready": True,
        "port": port,
        "issuer": issuer,
        "discovery_url": issuer + "/.well-known/openid-configuration",
        "users": [user.sub for user in users],
    }
    print(json.dumps(ready), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
