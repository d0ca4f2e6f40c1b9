#!/usr/bin/env python3
"""The browser sign-in seen from a real browser: headless Chromium (Debian's /usr/bin/chromium)
driven by Playwright, against two OpenID providers: the dev identity provider (`dev`, the setup
`make run` starts) and oidc-provider-mock from PyPI (Tests/Peers/oidc_mock.py), which nobody here wrote;
and once more against the mock with the gateway on https (`https`: a self-signed certificate made
with `openssl req`, `__Host-` session and attempt cookies, and a planted attempt cookie refused).

    .build/python-tools/bin/python Tests/Peers/browser_signin_suite.py --gateway .build/debug/app-native-gateway
        [--only dev|mock|https] [--screenshots DIR] [--timeout SECONDS]

Everything listens on loopback, port 0 (ports are read back from what each process prints). Prints
one line per case (`PASS name` or `FAIL name: reason`), then `N passed, M failed`; exits 1 when a
case failed, 2 when the set-up failed. Never prints a token, a code or a cookie.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_suite import REDACTED, ROOT, UPSTREAM_SCRIPT, WAIT_MS, Child, check, redact, run, run_suite  # noqa: E402

TENANT = "d0d0d0d0-0000-4000-8000-00000000de01"
COOKIE = "bms_session"
HOST_COOKIE = "__Host-bms_session"
MOCK_SCRIPT = os.path.join(ROOT, "Tests", "Peers", "oidc_mock.py")


class Provider:
    """One provider's set-up: the gateway signing in through it and how its sign-in page is used."""

    def __init__(self, name, gateway, choose_user, other_tenant_user, signs_out_at_provider, cookie=COOKIE):
        self.name = name
        self.gateway = gateway
        self.cookie = cookie  # the session cookie's name
        self.choose_user = choose_user  # page -> clicks the dev-tenant user
        self.other_tenant_user = other_tenant_user  # page -> clicks the other tenant's user
        self.signs_out_at_provider = signs_out_at_provider


class Suite:
    def __init__(self, args):
        self.args = args
        self.temp = tempfile.TemporaryDirectory(prefix="browser-signin-")
        self.screenshots = args.screenshots or os.path.join(self.temp.name, "screenshots")
        os.makedirs(self.screenshots, exist_ok=True)
        self.results = []
        self.token = None

    def start(self, playwright):
        binary = os.path.abspath(self.args.gateway)
        base_env = {"PATH": "/usr/bin:/bin", "APPNATIVE_REPOSITORY_ROOT": ROOT}
        jwks = os.path.join(self.temp.name, "jwks.json")
        with open(jwks, "w") as handle:
            handle.write(run([binary, "token", "jwks", "--dev"], base_env))
        self.token = run([binary, "token", "mint", "--dev", "--lifetime", "3600"], base_env).strip()
        REDACTED.add(self.token)
        upstream = Child([sys.executable, UPSTREAM_SCRIPT, "--jwks", jwks], env=base_env, name="upstream")
        upstream_port = int(upstream.wait_line(lambda l: l.startswith("READY "), 60).split()[1])
        self.providers = []
        common = {
            "LISTEN": "127.0.0.1:0", "ADMIN_LISTEN": "127.0.0.1:0", "EVENT_LOOPS": "2",
            "UPSTREAM_URL": f"http://127.0.0.1:{upstream_port}", "PUBLIC_PATHS": "/public/",
        }
        if self.args.only in (None, "dev"):
            # `dev` is `make run`: browser sign-in on, against the dev identity provider.
            env = dict(base_env, SIGN_OUT="entra", **common)
            child = Child([binary, "dev"], env=env, name="dev gateway")
            ready = child.wait_line(lambda l: l.startswith("app-native-gateway ready "), 120)
            port = int(ready.split("listen=", 1)[1].split()[0].rsplit(":", 1)[1])
            self.providers.append(Provider(
                "dev", f"http://127.0.0.1:{port}",
                lambda page: page.click("#user-zoe"), lambda page: page.click("#user-eve"), True,
            ))
        for name in ("mock", "https"):
            if self.args.only not in (None, name):
                continue
            mock = Child([sys.executable, MOCK_SCRIPT], env=dict(base_env, PYTHONUNBUFFERED="1"), name="oidc-provider-mock")
            announced = json.loads(mock.wait_line(lambda l: l.startswith("{"), 120))
            secret = "browser-suite-session-secret-0123456789abcdef"
            REDACTED.add(secret)
            env = dict(base_env, **common, **{
                "ENTRA_TENANT_ID": TENANT, "ENTRA_AUDIENCE": "appnative-dev-ios-app",
                "ENTRA_JWKS_URL": f"http://127.0.0.1:{upstream_port}/test-jwks",
                "SESSION_SECRET": secret, "SESSION_SECURE": "false",
                "BROWSER_SIGN_IN": "true", "ENTRA_CLIENT_ID": "browser-suite-client", "ENTRA_CLIENT_SECRET": "browser-suite-secret",
                "OIDC_DISCOVERY_URL": announced["discovery_url"], "SIGN_OUT": "local",
            })
            cookie, scheme = COOKIE, "http"
            if name == "https":
                # As the deploy templates ship it: a __Host- session cookie, Secure, over TLS.
                cert, key = os.path.join(self.temp.name, "cert.pem"), os.path.join(self.temp.name, "key.pem")
                subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                                "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                                "-addext", "subjectAltName=IP:127.0.0.1"],
                               check=True, capture_output=True, timeout=60)
                cookie, scheme = HOST_COOKIE, "https"
                env.update(TLS_CERT_FILE=cert, TLS_KEY_FILE=key, SESSION_SECURE="true", SESSION_COOKIE_NAME=cookie)
            child = Child([binary, "serve"], env=env, name=f"{name} gateway")
            ready = child.wait_line(lambda l: l.startswith("app-native-gateway ready "), 120)
            port = int(ready.split("listen=", 1)[1].split()[0].rsplit(":", 1)[1])
            self.providers.append(Provider(
                name, f"{scheme}://127.0.0.1:{port}",
                lambda page: page.click("button[value='mock-zoe']"),
                lambda page: page.click("button[value='mock-other-tenant']"), False, cookie,
            ))
        self.browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--ignore-certificate-errors"], timeout=120_000)

    def context(self):
        context = self.browser.new_context(ignore_https_errors=True)
        context.set_default_timeout(WAIT_MS)
        context.set_default_navigation_timeout(WAIT_MS)
        return context

    def screenshot(self, page, name):
        path = os.path.join(self.screenshots, name)
        page.screenshot(path=path, full_page=True)
        return path

    def case(self, name, body):
        try:
            body()
            self.results.append((name, None))
            print(f"PASS {name}", flush=True)
        except Exception as error:  # noqa: BLE001 - every failure is reported as the case's
            reason = str(error) if isinstance(error, AssertionError) else f"{type(error).__name__}: {error}"
            reason = redact(" ".join(reason.split()))[:600]
            self.results.append((name, reason))
            print(f"FAIL {name}: {reason}", flush=True)


def on_gateway(page, gateway, path_prefix):
    """Waits until the page is on `gateway` at a path starting with `path_prefix`."""
    page.wait_for_url(lambda url: url.startswith(gateway + path_prefix), timeout=WAIT_MS)


def sign_in_cases(suite, provider):
    gateway = provider.gateway

    def navigation_signs_in():
        context = suite.context()
        page = context.new_page()
        page.goto(gateway + "/app/report?year=2026&q=a%20b")
        check(not page.url.startswith(gateway), f"not sent to the provider: {page.url}")
        provider.choose_user(page)
        on_gateway(page, gateway, "/app/")
        check(page.url == gateway + "/app/report?year=2026&q=a%20b", f"landed on {page.url}")
        check("auth=cookie" in page.content(), "the page is not signed in by the cookie")
        cookies = {c["name"]: c for c in context.cookies()}
        for cookie in context.cookies():
            REDACTED.add(cookie["value"])
        check(provider.cookie in cookies and cookies[provider.cookie]["httpOnly"], "no HttpOnly session cookie")
        check(not any("bms_signin_" in name for name in cookies), "a state cookie stayed after the callback")
        me = page.evaluate("async () => (await fetch('/.auth/me')).json()")
        check(me.get("auth_method") == "cookie", f"/.auth/me: {me}")
        suite.screenshot(page, f"{provider.name}-signed-in.png")
        context.close()

    def fetch_gets_401():
        context = suite.context()
        page = context.new_page()
        page.goto(gateway + "/public/start.html")
        statuses = page.evaluate("""async () => {
            const f = await fetch('/app/data', {redirect: 'manual'});
            const x = await new Promise(done => { const r = new XMLHttpRequest(); r.open('GET', '/app/data');
                r.onload = () => done(r.status); r.onerror = () => done(-1); r.send(); });
            return [f.status, x, f.headers.get('content-type')];
        }""")
        check(statuses[0] == 401 and statuses[1] == 401, f"fetch/XHR got {statuses}")
        check((statuses[2] or "").startswith("application/json"), f"fetch content type {statuses[2]}")
        context.close()

    def bearer_exchange_still_works():
        if provider.name != "dev":
            return  # the Bearer path verifies the dev tenant's app tokens, which only the dev setup mints
        context = suite.context()
        page = context.new_page()
        page.goto(gateway + "/public/start.html")
        status = page.evaluate(
            "async token => (await fetch('/.auth/session', {method: 'POST', headers: {Authorization: 'Bearer ' + token}})).status",
            suite.token,
        )
        check(status == 204, f"POST /.auth/session answered {status}")
        for cookie in context.cookies():
            REDACTED.add(cookie["value"])
        response = page.goto(gateway + "/app/after-exchange")
        check(response.status == 200 and page.url == gateway + "/app/after-exchange", f"{response.status} {page.url}")
        bearer = page.evaluate(
            "async token => (await fetch('/app/bearer', {headers: {Authorization: 'Bearer ' + token}})).status", suite.token)
        check(bearer == 200, f"Bearer fetch answered {bearer}")
        context.close()

    def open_redirect_lands_here():
        for attempt in ["//evil.example/x", "/\\evil.example", "https://evil.example/", "/%2F%2Fevil.example", "javascript:alert(1)"]:
            context = suite.context()
            page = context.new_page()
            page.goto(gateway + "/.auth/login?redirect=" + urllib.request.quote(attempt, safe=""))
            provider.choose_user(page)
            on_gateway(page, gateway, "/")
            check(page.url.startswith(gateway + "/"), f"{attempt} led to {page.url}")
            check(page.url == gateway + "/", f"{attempt} led to {page.url}")
            context.close()

    def replayed_and_forged_callback_refused():
        context = suite.context()
        page = context.new_page()
        callbacks = []
        page.on("request", lambda r: callbacks.append(r.url) if "/.auth/callback?" in r.url else None)
        page.goto(gateway + "/app/replay")
        provider.choose_user(page)
        on_gateway(page, gateway, "/app/replay")
        check(callbacks, "no callback seen")
        for url in callbacks:
            REDACTED.add(url)
        response = page.goto(callbacks[0])
        check(response.status == 400, f"replayed callback answered {response.status}")
        body = page.content()
        check("Sign in again" in body and ("state_missing" in body or "state_replayed" in body), "replay page")
        suite.screenshot(page, f"{provider.name}-error-replayed.png")
        fresh = suite.context().new_page()
        response = fresh.goto(gateway + "/.auth/callback?code=forged&state=" + "A" * 43)
        check(response.status == 400 and "state_missing" in fresh.content(), f"forged callback answered {response.status}")
        fresh.context.close()
        context.close()

    def other_tenant_refused():
        context = suite.context()
        page = context.new_page()
        page.goto(gateway + "/app/tenant")
        provider.other_tenant_user(page)
        on_gateway(page, gateway, "/.auth/callback")
        body = page.content()
        check("wrong_tenant" in body and "another" not in page.url, "no wrong-tenant page")
        check("other-tenant" not in body, "the page shows the refused user's email")
        check(not any(c["name"] == provider.cookie for c in context.cookies()), "a session cookie was set")
        suite.screenshot(page, f"{provider.name}-error-wrong-tenant.png")
        context.close()

    def sign_out():
        context = suite.context()
        page = context.new_page()
        page.goto(gateway + "/app/signout")
        provider.choose_user(page)
        on_gateway(page, gateway, "/app/signout")
        page.evaluate("""() => { const f = document.createElement('form'); f.method = 'POST'; f.action = '/.auth/logout';
            document.body.appendChild(f); f.submit(); }""")
        on_gateway(page, gateway, "/.auth/signed-out")
        check("signed out" in page.content(), "no signed-out page")
        check(not any(c["name"] == provider.cookie for c in context.cookies()), "the session cookie stayed")
        suite.screenshot(page, f"{provider.name}-signed-out.png")
        response = page.goto(gateway + "/app/after-signout")
        check(not page.url.startswith(gateway + "/app/"), f"still signed in: {page.url} {response.status}")
        context.close()

    def two_tabs():
        context = suite.context()
        first, second = context.new_page(), context.new_page()
        first.goto(gateway + "/app/one?tab=1")
        second.goto(gateway + "/app/two?tab=2")
        provider.choose_user(second)
        provider.choose_user(first)
        on_gateway(second, gateway, "/app/two")
        on_gateway(first, gateway, "/app/one")
        check(first.url == gateway + "/app/one?tab=1" and second.url == gateway + "/app/two?tab=2", f"{first.url} {second.url}")
        context.close()

    def host_cookies():
        # The browser kept both cookies as set: __Host- (Secure, Path=/, host-only), attempt and session.
        context = suite.context()
        page = context.new_page()
        page.goto(gateway + "/app/host")
        check(not page.url.startswith(gateway), f"not sent to the provider: {page.url}")
        attempts = [c for c in context.cookies() if "bms_signin_" in c["name"]]
        for cookie in context.cookies():
            REDACTED.add(cookie["value"])
        check(len(attempts) == 1, f"{len(attempts)} attempt cookies")
        attempt = attempts[0]
        check(attempt["name"].startswith("__Host-bms_signin_") and attempt["secure"] and attempt["path"] == "/"
              and attempt["domain"] == "127.0.0.1" and attempt["httpOnly"], f"attempt cookie attributes {dict(attempt, value='…')}")
        provider.choose_user(page)
        on_gateway(page, gateway, "/app/host")
        cookies = {c["name"]: c for c in context.cookies()}
        for cookie in context.cookies():
            REDACTED.add(cookie["value"])
        session = cookies.get(HOST_COOKIE)
        check(session is not None and session["secure"] and session["path"] == "/", "no __Host- session cookie")
        check(not any("bms_signin_" in name for name in cookies), "a state cookie stayed after the callback")
        context.close()

    def planted_attempt_cookie_refused():
        # The attacker starts an attempt and signs in at the provider; the callback is held back.
        attacker = suite.context()
        page = attacker.new_page()
        held = []

        def hold_back(route):
            # The provider's answer to the sign-in form is the redirect to the callback: kept, not followed.
            if route.request.method != "POST":
                return route.continue_()
            answer = route.fetch(max_redirects=0)
            held.append(answer.headers.get("location", ""))
            route.fulfill(status=200, content_type="text/plain", body="held back")

        page.route(lambda url: not url.startswith(gateway), hold_back)
        page.goto(gateway + "/.auth/login?redirect=/app/mine")
        stolen = next(c for c in attacker.cookies() if "bms_signin_" in c["name"])
        REDACTED.add(stolen["value"])
        provider.choose_user(page)
        for _ in range(100):
            if held:
                break
            page.wait_for_timeout(100)
        check(held and held[0].startswith(gateway + "/.auth/callback?"), "the attacker's callback was not seen")
        REDACTED.add(held[0])
        attacker.close()
        # What a sibling subdomain can plant in the victim's browser: the bare name (a __Host-
        # cookie with a Domain is refused by the browser).
        victim = suite.context()
        victim.add_cookies([{"name": stolen["name"].removeprefix("__Host-"), "value": stolen["value"],
                             "url": gateway + "/", "secure": True, "httpOnly": True, "sameSite": "Lax"}])
        page = victim.new_page()
        response = page.goto(held[0])
        check(response.status == 400 and "state_missing" in page.content(), f"the planted cookie's callback answered {response.status}")
        check(not any(c["name"] == provider.cookie for c in victim.cookies()), "the victim was signed in as the attacker")
        victim.close()

    https_only = [
        ("__Host- attempt and session cookies are kept by the browser", host_cookies),
        ("a planted bare-named attempt cookie is refused at the callback", planted_attempt_cookie_refused),
    ] if gateway.startswith("https://") else []
    return https_only + [
        ("navigation signs in and returns to the URL with its query", navigation_signs_in),
        ("fetch and XHR get 401, not a redirect", fetch_gets_401),
        ("Bearer exchange and cookie keep working", bearer_exchange_still_works),
        ("open-redirect attempts land on this origin", open_redirect_lands_here),
        ("replayed and forged callbacks are refused", replayed_and_forged_callback_refused),
        ("a user of another tenant is refused", other_tenant_refused),
        ("sign-out", sign_out),
        ("two tabs sign in at once", two_tabs),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gateway", required=True, help="path of the app-native-gateway binary")
    parser.add_argument("--only", choices=["dev", "mock", "https"], help="run one set-up's cases")
    parser.add_argument("--screenshots", help="keep the screenshots in this directory")
    parser.add_argument("--timeout", type=float, default=600, help="seconds before the whole run is abandoned")
    args = parser.parse_args()

    def cases(suite):
        for provider in suite.providers:
            for name, body in sign_in_cases(suite, provider):
                yield f"{provider.name}/{name}", body

    return run_suite(Suite(args), args, cases)


if __name__ == "__main__":
    sys.exit(main())
