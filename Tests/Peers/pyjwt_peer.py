#!/usr/bin/env python3
"""An independent JWT peer for interoperability tests: PyJWT (Debian python3-jwt).

mint-entra   sign an Entra-shaped RS256 token with a PEM private key
mint-cookie  sign a session cookie the way the Python reference does (HS256, aud constant)
read-cookie  verify a session cookie issued by the gateway and print its claims as JSON
verify-es256 verify an ES256 JWT against a JWKS document (identity assertions)
"""
import argparse
import json
import sys

import jwt

SESSION_AUDIENCE = "bmsdna-app-native-session"


def main() -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    entra = sub.add_parser("mint-entra")
    entra.add_argument("--key-file", required=True)
    entra.add_argument("--kid", required=True)
    entra.add_argument("--claims", required=True, help="JSON object")
    cookie = sub.add_parser("mint-cookie")
    cookie.add_argument("--secret", required=True)
    cookie.add_argument("--claims", required=True)
    read = sub.add_parser("read-cookie")
    read.add_argument("--secret", required=True)
    read.add_argument("--cookie", required=True)
    es = sub.add_parser("verify-es256")
    es.add_argument("--jwks", required=True)
    es.add_argument("--token", required=True)
    es.add_argument("--audience", required=True)
    args = parser.parse_args()

    if args.command == "mint-entra":
        with open(args.key_file, encoding="utf-8") as handle:
            key = handle.read()
        print(jwt.encode(json.loads(args.claims), key, algorithm="RS256", headers={"kid": args.kid}))
    elif args.command == "mint-cookie":
        print(jwt.encode(json.loads(args.claims), args.secret, algorithm="HS256"))
    elif args.command == "read-cookie":
        try:
            claims = jwt.decode(
                args.cookie,
                args.secret,
                algorithms=["HS256"],
                audience=SESSION_AUDIENCE,
                options={"require": ["exp", "sub", "aud"]},
                leeway=30,
            )
        except jwt.PyJWTError as error:
            print(json.dumps({"error": type(error).__name__}))
            return 1
        print(json.dumps(claims, ensure_ascii=False))
    elif args.command == "verify-es256":
        jwks = jwt.PyJWKSet.from_json(args.jwks)
        header = jwt.get_unverified_header(args.token)
        key = next(k for k in jwks.keys if k.key_id == header.get("kid"))
        claims = jwt.decode(args.token, key.key, algorithms=["ES256"], audience=args.audience)
        print(json.dumps(claims, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
