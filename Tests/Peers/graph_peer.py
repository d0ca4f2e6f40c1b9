#!/usr/bin/env python3
"""Plays Entra ID's token endpoint (client credentials) and Microsoft Graph's getMemberGroups for
the gateway's groups-overage tests (stdlib only, loopback only). Prints `READY <port>`.

Shapes follow Microsoft's documentation:
- "Microsoft identity platform and the OAuth 2.0 client credentials flow": the request is a form
  POST with grant_type=client_credentials, client_id, scope (`https://graph.microsoft.com/.default`)
  and client_secret (or client_assertion); the success answer is
  {"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": "..."},
  an error answer {"error": "invalid_client", "error_description": "AADSTS7000215: ...",
  "error_codes": [7000215], "timestamp": ..., "trace_id": ..., "correlation_id": ...}.
- "directoryObject: getMemberGroups" (Graph v1.0): POST /v1.0/users/{id}/getMemberGroups with
  {"securityEnabledOnly": false} and `Authorization: Bearer`; 200 answers
  {"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#Collection(Edm.String)", "value": [...]};
  errors are {"error": {"code": "...", "message": "...", "innerError": {...}}}; throttling is 429
  with Retry-After (seconds) ("Microsoft Graph throttling guidance").

Routes:
  GET  /.well-known/openid-configuration   the discovery document (issuer http://127.0.0.1:PORT)
  POST /oauth2/v2.0/token                   client credentials
  POST /v1.0/users/{oid}/getMemberGroups    the user's groups
  POST /control                             JSON: {"graph": MODE, "token": MODE, "groups": {oid: [ids]},
                                            "retry_after": N, "delay": S, "token_delay": S}; only the members given change
  GET  /stats                               {"token": n, "graph": n, "graph_by_oid": {oid: n}, "last_scope": "..."}

Graph modes: ok, down (503, no Retry-After), denied (403 Authorization_RequestDenied), throttle
(429 with Retry-After), slow (answers after `delay` + 30 s), malformed (200 without value).
Token modes: ok, invalid_client (401, AADSTS7000215), down (500).
"""
import argparse
import http.server
import json
import secrets
import sys
import threading
import time
import urllib.parse

lock = threading.Lock()
state = {
    "graph": "ok",
    "token": "ok",
    "groups": {},
    "retry_after": 2,
    "delay": 0.0,
    "token_delay": 0.0,
}
stats = {"token": 0, "graph": 0, "graph_by_oid": {}, "last_scope": None, "last_body": None}
issued = set()


def make_handler(port: int, client_id: str, client_secret: str):
    issuer = f"http://127.0.0.1:{port}"

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, document, extra=None):
            body = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def read_body(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(min(length, 1 << 20)) if length > 0 else b""

        def do_GET(self):
            if self.path == "/.well-known/openid-configuration":
                self.send(200, {
                    "issuer": issuer,
                    "authorization_endpoint": issuer + "/oauth2/v2.0/authorize",
                    "token_endpoint": issuer + "/oauth2/v2.0/token",
                    "jwks_uri": issuer + "/discovery/v2.0/keys",
                    "response_types_supported": ["code", "id_token", "code id_token", "id_token token"],
                    "id_token_signing_alg_values_supported": ["RS256"],
                })
            elif self.path == "/stats":
                with lock:
                    self.send(200, stats)
            else:
                self.send(404, {"error": {"code": "Request_ResourceNotFound", "message": "not found"}})

        def do_POST(self):
            body = self.read_body()
            path = urllib.parse.urlsplit(self.path).path
            if path == "/control":
                change = json.loads(body or b"{}")
                with lock:
                    for key in ("graph", "token", "retry_after", "delay", "token_delay"):
                        if key in change:
                            state[key] = change[key]
                    for oid, groups in change.get("groups", {}).items():
                        state["groups"][oid] = groups
                self.send(200, {"ok": True})
            elif path == "/oauth2/v2.0/token":
                self.token(body)
            elif path.startswith("/v1.0/users/") and path.endswith("/getMemberGroups"):
                self.member_groups(path[len("/v1.0/users/"):-len("/getMemberGroups")], body)
            else:
                self.send(404, {"error": {"code": "Request_ResourceNotFound", "message": "not found"}})

        def token(self, body: bytes):
            form = dict(urllib.parse.parse_qsl(body.decode("ascii", "replace")))
            with lock:
                stats["token"] += 1
                stats["last_scope"] = form.get("scope")
                mode, delay = state["token"], state["token_delay"]
            if delay:
                time.sleep(float(delay))
            error = None
            if mode == "down":
                self.send(500, {"error": "temporarily_unavailable", "error_description": "AADSTS90033: A transient error has occurred.", "error_codes": [90033]})
                return
            if form.get("grant_type") != "client_credentials":
                error = (400, "unsupported_grant_type", 70003, "AADSTS70003: The app requested an unsupported grant type.")
            elif form.get("client_id") != client_id:
                error = (400, "unauthorized_client", 700016, "AADSTS700016: Application not found in the directory.")
            elif mode == "invalid_client" or form.get("client_secret") != client_secret:
                error = (401, "invalid_client", 7000215, "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.")
            elif form.get("scope") != "https://graph.microsoft.com/.default":
                error = (400, "invalid_scope", 1002012, "AADSTS1002012: The provided value for scope is not valid.")
            if error:
                status, code, number, description = error
                self.send(status, {
                    "error": code, "error_description": description, "error_codes": [number],
                    "timestamp": time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime()),
                    "trace_id": "00000000-0000-4000-8000-000000000001", "correlation_id": "00000000-0000-4000-8000-000000000002",
                    "error_uri": "https://login.microsoftonline.com/error?code=%d" % number,
                })
                return
            token = "graph-app-token-" + secrets.token_hex(16)
            with lock:
                issued.add(token)
            self.send(200, {"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": token})

        def member_groups(self, oid: str, body: bytes):
            with lock:
                stats["graph"] += 1
                stats["graph_by_oid"][oid] = stats["graph_by_oid"].get(oid, 0) + 1
                stats["last_body"] = body.decode("utf-8", "replace")
                mode, retry_after, delay = state["graph"], state["retry_after"], state["delay"]
                groups = state["groups"].get(oid)
                authorization = self.headers.get("Authorization", "")
                known = authorization.startswith("Bearer ") and authorization[7:] in issued
            if delay:
                time.sleep(float(delay))
            if mode == "slow":
                time.sleep(30)
            if mode == "down":
                self.send(503, {"error": {"code": "serviceNotAvailable", "message": "Service unavailable"}})
                return
            if mode == "throttle":
                self.send(429, {"error": {"code": "TooManyRequests", "message": "Too many requests"}}, {"Retry-After": str(retry_after)})
                return
            if mode == "denied":
                self.send(403, {"error": {"code": "Authorization_RequestDenied", "message": "Insufficient privileges to complete the operation."}})
                return
            if not known:
                self.send(401, {"error": {"code": "InvalidAuthenticationToken", "message": "Access token validation failure. Invalid audience."}})
                return
            try:
                request = json.loads(body)
            except ValueError:
                request = None
            if not isinstance(request, dict) or not isinstance(request.get("securityEnabledOnly"), bool):
                self.send(400, {"error": {"code": "Request_BadRequest", "message": "Invalid request body."}})
                return
            if groups is None:
                self.send(404, {"error": {"code": "Request_ResourceNotFound", "message": f"Resource '{oid}' does not exist or one of its queried reference-property objects are not present."}})
                return
            if mode == "malformed":
                self.send(200, {"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#Collection(Edm.String)", "value": [1, 2]})
                return
            self.send(200, {"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#Collection(Edm.String)", "value": groups})

    return Handler


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret", required=True)
    arguments = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), None)
    server.daemon_threads = True
    port = server.server_address[1]
    server.RequestHandlerClass = make_handler(port, arguments.client_id, arguments.client_secret)
    print(f"READY {port}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
