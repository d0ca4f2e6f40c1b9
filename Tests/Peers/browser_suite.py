#!/usr/bin/env python3
"""The gateway seen from a real browser: headless Chromium (Debian's /usr/bin/chromium) driven by
Playwright, over plain HTTP and over TLS.

    .build/python-tools/bin/python Tests/Peers/browser_suite.py --gateway .build/debug/app-native-gateway
        [--only http|tls] [--screenshots DIR] [--timeout SECONDS]

Starts everything it needs on loopback, each listener on port 0 (ports are read back from what
each process prints): the upstream (browser_upstream.py), per scheme a gateway (`serve`, explicit
environment, the dev identity provider's keys as the tenant's) and a second one whose cookies
last seconds (expiry cases), pages on two other origins (a same-site one: another port; a
cross-site one: 127.0.0.2), and a self-signed certificate made with `openssl req` for the TLS
listeners. Prints one line per case (`PASS name` or `FAIL name: reason`), then `N passed, M failed`;
exits 1 when a case failed, 2 when the set-up failed. Never prints a token or a cookie.
"""
import argparse
import ctypes
import http.server
import json
import os
import secrets
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UPSTREAM_SCRIPT = os.path.join(ROOT, "Tests", "Peers", "browser_upstream.py")
TENANT = "d0d0d0d0-0000-4000-8000-00000000de01"
AUDIENCE = "appnative-dev-ios-app"
COOKIE = "bms_session"
DEFAULT_MAX_AGE = 28800
EXPIRY_MAX_AGE = 20  # seconds: long enough to open the streams on a loaded machine
WAIT_MS = 30_000  # generous deadline of every browser-side wait
COOKIE_LEEWAY = 30  # seconds a session cookie is accepted past its exp: the least CREDENTIAL_EXPIRY_GRACE with cookies
EXPIRY_WAIT_MS = (EXPIRY_MAX_AGE + COOKIE_LEEWAY + 40) * 1000

# Values never to appear in the output (tokens, cookie values, the session secret).
REDACTED = set()


def redact(text):
    for value in REDACTED:
        if value:
            text = text.replace(value, "<redacted>")
    return text


class Child:
    """A child process that dies with this one (PR_SET_PDEATHSIG) and whose stdout lines are kept."""

    children = []

    def __init__(self, argv, env=None, name=""):
        self.name = name
        self.lines = []
        self.condition = threading.Condition()
        self.closed = False
        self.stderr = tempfile.TemporaryFile()

        def die_with_parent():
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

        self.process = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr, preexec_fn=die_with_parent)
        Child.children.append(self)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.process.stdout:
            with self.condition:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.condition.notify_all()
        with self.condition:
            self.closed = True
            self.condition.notify_all()

    def wait_line(self, predicate, timeout):
        """The first stdout line satisfying `predicate`, waiting up to `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                for line in self.lines:
                    if predicate(line):
                        return line
                remaining = deadline - time.monotonic()
                if self.closed or remaining <= 0:
                    self.stderr.seek(0)
                    log = self.stderr.read().decode("utf-8", "replace")[-1500:]
                    raise RuntimeError(f"{self.name}: no expected output line (exit {self.process.poll()}): {redact(log)}")
                self.condition.wait(remaining)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass

    @classmethod
    def stop_all(cls):
        for child in reversed(cls.children):
            child.stop()


def run(argv, env):
    result = subprocess.run(argv, env=env, capture_output=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"{os.path.basename(argv[0])} {argv[1]} failed: {result.stderr.decode()[-800:]}")
    return result.stdout.decode()


class OtherOrigin(http.server.ThreadingHTTPServer):
    """Pages on an origin that is not the gateway's (the attacker's page in the cross-origin cases)."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


class OtherOriginPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<!doctype html><html><head><meta charset=utf-8><title>Other origin</title></head><body><h1>Other origin</h1></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def other_origin(host, context=None):
    server = OtherOrigin((host, 0), OtherOriginPage)
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Scheme:
    """One scheme's set-up: the gateway, the expiry gateway and the other origins' pages."""

    def __init__(self, name, gateway, expiry_gateway, same_site, cross_site):
        self.name = name
        self.gateway = gateway
        self.expiry_gateway = expiry_gateway
        self.same_site = same_site
        self.cross_site = cross_site
        self.secure = name == "tls"


class Suite:
    def __init__(self, args):
        self.args = args
        self.temp = tempfile.TemporaryDirectory(prefix="browser-suite-")
        self.screenshots = args.screenshots or os.path.join(self.temp.name, "screenshots")
        os.makedirs(self.screenshots, exist_ok=True)
        self.results = []
        self.gateway_logs = {}
        self.upstream_port = None
        self.token = None

    # MARK: set-up

    def start(self, playwright):
        binary = os.path.abspath(self.args.gateway)
        base_env = {"PATH": "/usr/bin:/bin", "APPNATIVE_REPOSITORY_ROOT": ROOT}
        jwks = os.path.join(self.temp.name, "jwks.json")
        with open(jwks, "w") as handle:
            handle.write(run([binary, "token", "jwks", "--dev"], base_env))
        self.token = run([binary, "token", "mint", "--dev", "--lifetime", "3600"], base_env).strip()
        REDACTED.add(self.token)
        upstream = Child([sys.executable, UPSTREAM_SCRIPT, "--jwks", jwks], env=base_env, name="upstream")
        self.upstream_port = int(upstream.wait_line(lambda l: l.startswith("READY "), 60).split()[1])

        cert, key = os.path.join(self.temp.name, "cert.pem"), os.path.join(self.temp.name, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1,IP:127.0.0.2"],
                       check=True, capture_output=True, timeout=60)
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(cert, key)
        policy = os.path.join(self.temp.name, "policy.json")
        with open(policy, "w") as handle:
            json.dump({"rules": [{"path": "/admin/", "roles": ["Admin"]}, {"path": "/", "allow": "authenticated"}]}, handle)

        secret = secrets.token_urlsafe(48)
        REDACTED.add(secret)
        self.schemes = []
        for name in (["http", "tls"] if self.args.only is None else [self.args.only]):
            env = dict(base_env, **{
                "LISTEN": "127.0.0.1:0", "ADMIN_LISTEN": "127.0.0.1:0", "EVENT_LOOPS": "2", "ACCESS_LOG": "true",
                "UPSTREAM_URL": f"http://127.0.0.1:{self.upstream_port}",
                "ENTRA_TENANT_ID": TENANT, "ENTRA_AUDIENCE": AUDIENCE,
                "ENTRA_JWKS_URL": f"http://127.0.0.1:{self.upstream_port}/test-jwks",
                "SESSION_SECRET": secret, "SESSION_SECURE": "true" if name == "tls" else "false",
                "PUBLIC_PATHS": "/public/", "ACCESS_POLICY_FILE": policy,
            })
            if name == "tls":
                env.update(TLS_CERT_FILE=cert, TLS_KEY_FILE=key)
            expiry_env = dict(env, SESSION_MAX_AGE=str(EXPIRY_MAX_AGE), CREDENTIAL_EXPIRY_GRACE=str(COOKIE_LEEWAY),
                              CLOCK_SKEW_LEEWAY="0")
            origin_scheme = "https" if name == "tls" else "http"
            gateways = []
            for label, gateway_env in (("gateway", env), ("expiry gateway", expiry_env)):
                child = Child([binary, "serve"], env=gateway_env, name=f"{name} {label}")
                ready = child.wait_line(lambda l: l.startswith("app-native-gateway ready "), 120)
                port = int(ready.split("listen=", 1)[1].split()[0].rsplit(":", 1)[1])
                url = f"{origin_scheme}://127.0.0.1:{port}"
                self.gateway_logs[url] = child
                gateways.append(url)
            same_site = other_origin("127.0.0.1", tls if name == "tls" else None)
            cross_site = other_origin("127.0.0.2", tls if name == "tls" else None)
            self.schemes.append(Scheme(
                name, gateways[0], gateways[1],
                f"{origin_scheme}://127.0.0.1:{same_site.server_address[1]}",
                f"{origin_scheme}://127.0.0.2:{cross_site.server_address[1]}",
            ))
        self.browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--ignore-certificate-errors"], timeout=120_000
        )

    # MARK: helpers

    def context(self):
        context = self.browser.new_context(ignore_https_errors=True, accept_downloads=True)
        context.set_default_timeout(WAIT_MS)
        context.set_default_navigation_timeout(WAIT_MS)
        return context

    def signed_in(self, gateway):
        """A browser context signed in the WebView way: a page of the gateway's origin posts the
        token to /.auth/session once; from then on only the cookie is sent."""
        context = self.context()
        page = context.new_page()
        response = page.goto(gateway + "/public/start.html")
        check(response.status == 200, f"start page: {response.status}")
        status = page.evaluate(
            "async token => (await fetch('/.auth/session', {method: 'POST', headers: {Authorization: 'Bearer ' + token}})).status",
            self.token,
        )
        check(status == 204, f"POST /.auth/session answered {status}, expected 204")
        for cookie in context.cookies():
            REDACTED.add(cookie["value"])
        check(any(c["name"] == COOKIE for c in context.cookies()), "no session cookie in the browser's jar")
        return context, page

    def seen(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.upstream_port}/seen", timeout=30) as answer:
            return json.loads(answer.read()).get(path, 0)

    def access_log(self, gateway, path, wait=True):
        """The gateway's JSON access-log entries for `path`, waiting up to the deadline for one."""
        deadline = time.monotonic() + WAIT_MS / 1000
        while True:
            entries = []
            for line in list(self.gateway_logs[gateway].lines):
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and entry.get("type") == "access" and entry.get("path") == path:
                    entries.append(entry)
            if entries or not wait or time.monotonic() > deadline:
                return entries
            time.sleep(0.1)

    def outcome(self, page, url, action):
        """What the browser got for its request to `url` made by `action()`: ("status", N) or
        ("network error", reason). Waits to the deadline for either."""
        seen = []
        on_response = lambda r: seen.append(("status", r.status)) if r.url == url else None
        on_failure = lambda r: seen.append(("network error", r.failure)) if r.url == url else None
        page.on("response", on_response)
        page.on("requestfailed", on_failure)
        try:
            action()
            deadline = time.monotonic() + WAIT_MS / 1000
            while not seen and time.monotonic() < deadline:
                page.wait_for_timeout(50)  # lets Playwright deliver its events; not an assertion
            check(seen, f"no response and no failure for {url} within {WAIT_MS // 1000} s")
            return seen[0]
        finally:
            page.remove_listener("response", on_response)
            page.remove_listener("requestfailed", on_failure)

    def screenshot(self, page, name):
        path = os.path.join(self.screenshots, name)
        page.screenshot(path=path, full_page=True)
        return path

    # MARK: running

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


Error = Exception  # playwright.sync_api.Error once imported


def check(condition, reason):
    if not condition:
        raise AssertionError(reason)


def ws_url(origin):
    return "ws" + origin[len("http"):]


# MARK: cases

def webview_cases(suite, scheme):
    gateway = scheme.gateway

    def navigation():
        context, page = suite.signed_in(gateway)
        try:
            response = page.goto(gateway + "/app/home")
            check(response.status == 200, f"top-level navigation: {response.status}, expected 200")
            text = page.inner_text("#who")
            check("auth=cookie" in text, f"the upstream saw {text!r}, expected auth=cookie")
        finally:
            context.close()

    def image():
        context, page = suite.signed_in(gateway)
        try:
            width = page.evaluate("""() => new Promise(resolve => {
                const img = new Image();
                img.onload = () => resolve(img.naturalWidth);
                img.onerror = () => resolve('error');
                img.src = '/img/pixel.png';
                document.body.appendChild(img);
            })""")
            check(width == 3, f"<img> on a protected path: {width}, expected a 3 px wide image")
        finally:
            context.close()

    def download():
        context, page = suite.signed_in(gateway)
        try:
            with page.expect_download(timeout=WAIT_MS) as info:
                page.evaluate("""() => {
                    const a = document.createElement('a');
                    a.href = '/files/report.csv'; a.download = 'report.csv';
                    document.body.appendChild(a); a.click();
                }""")
            item = info.value
            check(item.failure() is None, f"download failed: {item.failure()}")
            with open(item.path(), encoding="utf-8") as handle:
                content = handle.read()
            check("auth_method,cookie" in content, f"downloaded {content[:80]!r}, expected the cookie-authenticated file")
            check(item.suggested_filename == "report.csv", f"file name {item.suggested_filename!r}")
        finally:
            context.close()

    def event_source():
        context, page = suite.signed_in(gateway)
        try:
            page.evaluate("""() => {
                window.events = []; window.eventErrors = 0;
                window.source = new EventSource('/events/stream');
                source.onmessage = event => events.push(event.data);
                source.onerror = () => { eventErrors += 1; };
            }""")
            page.wait_for_function("events.length >= 3 || eventErrors > 0", timeout=WAIT_MS)
            state = page.evaluate("({events: events.slice(0, 3), errors: eventErrors, readyState: source.readyState})")
            page.evaluate("source.close()")
            check(state["errors"] == 0 and state["events"] == ["event 0", "event 1", "event 2"],
                  f"EventSource on a protected path: {state}")
        finally:
            context.close()

    def websocket():
        context, page = suite.signed_in(gateway)
        try:
            page.evaluate("""url => {
                window.wsLog = [];
                window.socket = new WebSocket(url);
                socket.onopen = () => { wsLog.push('open'); socket.send('hello from the browser'); };
                socket.onmessage = event => wsLog.push('message:' + event.data);
                socket.onclose = event => wsLog.push('close:' + event.code);
            }""", ws_url(gateway) + "/ws/echo")
            page.wait_for_function("wsLog.some(e => e.startsWith('message:') || e.startsWith('close:'))", timeout=WAIT_MS)
            log = page.evaluate("wsLog")
            page.evaluate("socket.close(1000)")
            check(log[:2] == ["open", "message:hello from the browser"], f"WebSocket on a protected path: {log}")
        finally:
            context.close()

    def cookie_attributes():
        context, _ = suite.signed_in(gateway)
        try:
            cookies = [c for c in context.cookies() if c["name"] == COOKIE]
            check(len(cookies) == 1, f"{len(cookies)} session cookies in the jar")
            cookie = cookies[0]
            problems = []
            if cookie["httpOnly"] is not True:
                problems.append("not HttpOnly")
            if cookie["sameSite"] != "Lax":
                problems.append(f"SameSite={cookie['sameSite']}, expected Lax")
            if cookie["secure"] is not scheme.secure:
                problems.append(f"Secure={cookie['secure']}, expected {scheme.secure} (SESSION_SECURE)")
            if cookie["path"] != "/":
                problems.append(f"Path={cookie['path']}")
            if cookie["domain"] != "127.0.0.1":
                problems.append(f"Domain={cookie['domain']}, expected host-only 127.0.0.1")
            lifetime = cookie["expires"] - time.time()
            if not DEFAULT_MAX_AGE - 300 <= lifetime <= DEFAULT_MAX_AGE + 5:
                problems.append(f"expires in {lifetime:.0f} s, expected about {DEFAULT_MAX_AGE} s (SESSION_MAX_AGE)")
            check(not problems, "; ".join(problems))
        finally:
            context.close()

    return [
        ("webview-navigation", navigation), ("webview-image", image), ("webview-download", download),
        ("webview-event-source", event_source), ("webview-websocket", websocket),
        ("cookie-attributes", cookie_attributes),
    ]


def cross_origin_cases(suite, scheme):
    gateway = scheme.gateway

    def state_change():
        context, page = suite.signed_in(gateway)
        try:
            same = page.evaluate("async () => (await fetch('/app/change', {method: 'POST', body: 'same origin'})).status")
            check(same == 200, f"the same-origin POST (control) answered {same}, expected 200")
            path = "/app/change-from-other-origin"
            other = context.new_page()
            other.goto(scheme.same_site + "/")
            answer = suite.outcome(other, gateway + path, lambda: other.evaluate(
                """url => fetch(url, {method: 'POST', mode: 'no-cors', credentials: 'include',
                                      body: 'from another origin'}).catch(() => null)""", gateway + path))
            check(answer == ("status", 403), f"cookie-authenticated POST from {scheme.same_site}: {answer[0]} {answer[1]}, expected status 403")
            # The request's cookie is not visible to the page (no-cors): the gateway's log says it came.
            methods = [e.get("auth.method") for e in suite.access_log(gateway, path)]
            check(methods == ["cookie"], f"the gateway saw credentials {methods}, expected the cookie (else the Origin rule is not tested)")
            check(suite.seen(path) == 0, "the upstream received the cross-origin POST")
        finally:
            context.close()

    def websocket_handshake():
        context, page = suite.signed_in(gateway)
        try:
            other = context.new_page()
            other.goto(scheme.same_site + "/")
            path = "/ws/from-other-origin"
            other.evaluate("""url => {
                window.wsLog = [];
                const socket = new WebSocket(url);
                socket.onopen = () => wsLog.push('open');
                socket.onclose = event => wsLog.push('close:' + event.code);
            }""", ws_url(gateway) + path)
            other.wait_for_function("wsLog.some(e => e.startsWith('close:'))", timeout=WAIT_MS)
            log = other.evaluate("wsLog")
            check("open" not in log, f"the cross-origin WebSocket opened: {log}")
            # A refused handshake is only an error event to the page: the gateway's log has the status.
            answers = [(e.get("status"), e.get("auth.method")) for e in suite.access_log(gateway, path)]
            check(answers == [(403, "cookie")], f"the gateway answered the cross-origin handshake with (status, credential) {answers}, expected [(403, 'cookie')]")
            check(suite.seen(path) == 0, "the upstream received the cross-origin handshake")
        finally:
            context.close()

    def form_post():
        context, page = suite.signed_in(gateway)
        try:
            other = context.new_page()
            other.goto(scheme.same_site + "/")
            before = suite.seen("/app/transfer")
            try:
                with other.expect_navigation(timeout=WAIT_MS) as info:
                    other.evaluate("""url => {
                        const form = document.createElement('form');
                        form.method = 'POST'; form.action = url;
                        const field = document.createElement('input');
                        field.name = 'amount'; field.value = '100';
                        form.appendChild(field); document.body.appendChild(form); form.submit();
                    }""", gateway + "/app/transfer")
                response = info.value
            except Error as error:
                suite.screenshot(other, f"{scheme.name}-403-cross-origin-form.png")  # the browser's error page
                raise AssertionError(f"the browser shows a network error instead of the 403 page: {error.message.splitlines()[0]}")
            check(response is not None, "no response to the form POST (network error)")
            sent_cookie = COOKIE + "=" in (response.request.all_headers().get("cookie") or "")
            check(sent_cookie, "the browser did not send the cookie with the form POST")
            text = other.inner_text("body")
            suite.screenshot(other, f"{scheme.name}-403-cross-origin-form.png")
            check(response.status == 403, f"top-level form POST from {scheme.same_site}: {response.status}, expected 403")
            check("Origin not allowed" in text, f"the 403 page shows {text[:120]!r}")
            check(suite.seen("/app/transfer") == before, "the upstream received the cross-origin form POST")
        finally:
            context.close()

    def cross_site_form_post():
        context, page = suite.signed_in(gateway)
        try:
            other = context.new_page()
            other.goto(scheme.cross_site + "/")
            before = suite.seen("/app/transfer")
            with other.expect_navigation(timeout=WAIT_MS) as info:
                other.evaluate("""url => {
                    const form = document.createElement('form');
                    form.method = 'POST'; form.action = url;
                    document.body.appendChild(form); form.submit();
                }""", gateway + "/app/transfer")
            response = info.value
            check(response is not None, "no response to the form POST (network error)")
            sent_cookie = COOKIE + "=" in (response.request.all_headers().get("cookie") or "")
            check(not sent_cookie, "SameSite=Lax did not keep the cookie off a cross-site POST")
            check(response.status == 401, f"cross-site form POST from {scheme.cross_site}: {response.status}, expected 401")
            check(suite.seen("/app/transfer") == before, "the upstream received the cross-site form POST")
        finally:
            context.close()

    return [
        ("cross-origin-fetch-post-403", state_change), ("cross-origin-websocket-403", websocket_handshake),
        ("cross-origin-form-post-403", form_post), ("cross-site-form-post-no-cookie-401", cross_site_form_post),
    ]


def logout_cases(suite, scheme):
    gateway = scheme.gateway

    def logout():
        context, page = suite.signed_in(gateway)
        try:
            status = page.evaluate("async () => (await fetch('/.auth/logout', {method: 'POST'})).status")
            check(status == 204, f"POST /.auth/logout answered {status}, expected 204")
            check(not any(c["name"] == COOKIE for c in context.cookies()), "the session cookie is still in the jar")
            response = page.goto(gateway + "/app/after-logout")
            suite.screenshot(page, f"{scheme.name}-401-after-logout.png")
            check(response.status == 401, f"protected navigation after logout: {response.status}, expected 401")
            check("Not authenticated" in page.inner_text("body"), "the 401 page does not say Not authenticated")
        finally:
            context.close()

    def logout_get():
        context, page = suite.signed_in(gateway)
        try:
            # fetch, not a navigation: a 204 answer would abort a navigation before its status is seen.
            answer = page.evaluate("""async () => {
                const response = await fetch('/.auth/logout');
                return {status: response.status, allow: response.headers.get('allow')};
            }""")
            status, allow = answer["status"], answer["allow"]
            problems = []
            if status != 405:
                problems.append(f"GET /.auth/logout answered {status}, expected 405")
            if allow is None or "POST" not in allow or "GET" in allow:
                problems.append(f"Allow: {allow!r}, expected one naming POST only")
            if not any(c["name"] == COOKIE for c in context.cookies()):
                problems.append("the GET cleared the cookie (any link or cross-site navigation would sign the user out)")
            check(not problems, "; ".join(problems))
        finally:
            context.close()

    return [("logout-post-clears-cookie", logout), ("logout-get-405", logout_get)]


def error_cases(suite, scheme):
    gateway = scheme.gateway
    fetch = """async ([path, size]) => {
        try {
            return (await fetch(path, {method: 'POST', body: 'x'.repeat(size)})).status;
        } catch (error) { return String(error); }
    }"""

    def statuses(page, path):
        return {size: page.evaluate(fetch, [path, size]) for size in (1024, 1 << 20)}

    def unauthenticated():
        context = suite.context()
        try:
            page = context.new_page()
            page.goto(gateway + "/public/start.html")
            answers = statuses(page, "/app/upload")
            check(all(s == 401 for s in answers.values()),
                  f"POST bodies of 1 KiB / 1 MiB without credentials: {list(answers.values())}, expected 401")
        finally:
            context.close()

    def wrong_method():
        context = suite.context()
        try:
            page = context.new_page()
            page.goto(gateway + "/public/start.html")
            answers = statuses(page, "/.auth/me")
            check(all(s == 405 for s in answers.values()),
                  f"POST bodies of 1 KiB / 1 MiB to /.auth/me: {list(answers.values())}, expected 405")
        finally:
            context.close()

    def forbidden():
        context, page = suite.signed_in(gateway)
        try:
            answers = statuses(page, "/admin/settings")
            check(all(s == 403 for s in answers.values()),
                  f"POST bodies of 1 KiB / 1 MiB refused by the access policy: {list(answers.values())}, expected 403")
        finally:
            context.close()

    return [("error-401-reaches-fetch", unauthenticated), ("error-405-reaches-fetch", wrong_method),
            ("error-403-reaches-fetch", forbidden)]


def expiry_cases(suite, scheme):
    gateway = scheme.expiry_gateway
    shared = {}

    def opened():
        """One signed-in page holding an EventSource, a streamed fetch and a WebSocket open until
        the cookie (SESSION_MAX_AGE seconds, plus its 30 s leeway: the grace) expires; waits until all three ended."""
        if "log" in shared:
            return shared["log"]
        context, page = suite.signed_in(gateway)
        shared["context"] = context
        page.evaluate("""url => {
            window.expiry = {events: 0, esErrors: 0, esState: null, stream: null, chunks: 0, ws: []};
            const source = new EventSource('/events/stream');
            window.source = source;
            source.onmessage = () => { expiry.events += 1; };
            source.onerror = () => { expiry.esErrors += 1; expiry.esState = source.readyState; };
            (async () => {
                try {
                    const response = await fetch('/events/stream', {headers: {Accept: 'text/event-stream'}});
                    const reader = response.body.getReader();
                    for (;;) {
                        const {done} = await reader.read();
                        if (done) { expiry.stream = 'done'; return; }
                        expiry.chunks += 1;
                    }
                } catch (error) { expiry.stream = 'error: ' + error; }
            })();
            const socket = new WebSocket(url);
            socket.onopen = () => { expiry.ws.push('open'); socket.send('before expiry'); };
            socket.onmessage = event => expiry.ws.push('message:' + event.data);
            socket.onclose = event => expiry.ws.push({code: event.code, reason: event.reason, clean: event.wasClean});
        }""", ws_url(gateway) + "/ws/echo")
        try:
            page.wait_for_function("expiry.events >= 1 && expiry.chunks >= 1 && expiry.ws.length >= 2", timeout=WAIT_MS)
        except Exception:
            pass  # reported by the cases below, from the state
        shared["started"] = page.evaluate("JSON.parse(JSON.stringify(expiry))")
        try:
            page.wait_for_function(
                "source.readyState === 2 && expiry.stream !== null && expiry.ws.some(e => typeof e === 'object')",
                timeout=EXPIRY_WAIT_MS,
            )
        except Exception:
            pass
        shared["log"] = page.evaluate("({state: JSON.parse(JSON.stringify(expiry)), readyState: source.readyState})")
        context.close()
        return shared["log"]

    def event_source():
        log = opened()
        started, state = shared["started"], log["state"]
        check(started["events"] >= 1, f"the EventSource received no event before expiry: {started}")
        check(state["esErrors"] >= 1, f"the EventSource did not end within {EXPIRY_WAIT_MS // 1000} s after opening: {state}")
        check(log["readyState"] == 2, f"the EventSource is not closed (readyState {log['readyState']}): its reconnection was not refused")

    def event_stream_end():
        log = opened()
        started, state = shared["started"], log["state"]
        check(started["chunks"] >= 1, f"the streamed fetch received nothing before expiry: {started}")
        check(state["stream"] == "done", f"the event stream did not end cleanly: {state['stream']}")

    def websocket():
        log = opened()
        started, state = shared["started"], log["state"]
        check(started["ws"][:2] == ["open", "message:before expiry"], f"the WebSocket did not open and echo: {started['ws']}")
        closes = [e for e in state["ws"] if isinstance(e, dict)]
        check(closes, f"the WebSocket was not closed within {EXPIRY_WAIT_MS // 1000} s after opening")
        close = closes[0]
        check(close["code"] == 4401 and close["reason"] == "credential expired",
              f"the WebSocket closed with code {close['code']} reason {close['reason']!r} (clean={close['clean']}), "
              "expected a close frame 4401 'credential expired'")

    return [("expiry-event-source-ends", event_source), ("expiry-event-stream-ends-cleanly", event_stream_end),
            ("expiry-websocket-close-4401", websocket)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gateway", required=True, help="path of the app-native-gateway binary")
    parser.add_argument("--only", choices=["http", "tls"], help="run one scheme's cases")
    parser.add_argument("--screenshots", help="keep the screenshots in this directory")
    parser.add_argument("--timeout", type=float, default=900, help="seconds before the whole run is abandoned")
    args = parser.parse_args()

    global Error
    from playwright.sync_api import Error

    def cases(suite):
        for scheme in suite.schemes:
            for group in (webview_cases, cross_origin_cases, logout_cases, error_cases, expiry_cases):
                for name, body in group(suite, scheme):
                    yield f"{scheme.name}/{name}", body

    return run_suite(Suite(args), args, cases)


def run_suite(suite, args, cases):
    """Starts `suite` with a browser, runs every `(name, body)` of `cases(suite)` under a watchdog
    of `args.timeout` seconds, stops every child, and returns the exit status: 0 when every case
    passed, 1 when one failed, 2 when the set-up failed."""
    from playwright.sync_api import sync_playwright

    def abandon(reason):
        print(f"FAIL suite: {reason}", flush=True)
        Child.stop_all()
        suite.temp.cleanup()
        os._exit(2)

    watchdog = threading.Timer(args.timeout, abandon, [f"not finished after {args.timeout:.0f} s"])
    watchdog.daemon = True
    watchdog.start()
    signal.signal(signal.SIGTERM, lambda *_: abandon("terminated"))
    try:
        with sync_playwright() as playwright:
            try:
                suite.start(playwright)
            except Exception as error:  # noqa: BLE001
                print(f"FAIL set-up: {redact(str(error))}", flush=True)
                traceback.print_exc(file=sys.stderr)
                return 2
            for name, body in cases(suite):
                suite.case(name, body)
            suite.browser.close()
    finally:
        Child.stop_all()
    failed = sum(1 for _, reason in suite.results if reason is not None)
    if args.screenshots:
        print(f"screenshots in {suite.screenshots}", flush=True)
    print(f"{len(suite.results) - failed} passed, {failed} failed", flush=True)
    suite.temp.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
