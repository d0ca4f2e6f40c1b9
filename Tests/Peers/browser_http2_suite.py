#!/usr/bin/env python3
"""The gateway's HTTP/2 seen from a real browser: headless Chromium (Debian's /usr/bin/chromium)
driven by Playwright over TLS, where ALPN offers `h2`.

    .build/python-tools/bin/python Tests/Peers/browser_http2_suite.py --gateway .build/debug/app-native-gateway
        [--only h2|http1|websocket] [--timeout SECONDS]

Uses the set-up of browser_suite.py (upstream, the dev identity provider's keys, a self-signed
certificate, the WebView sign-in) for its TLS gateway, plus one more gateway with `HTTP2=false`
as the HTTP/1.1 control. Cases:
  h2         a page, a `fetch`, ten `EventSource`s on protected paths open at once and a `fetch`
             that still completes, each with `nextHopProtocol` `h2`
  http1      the control: with HTTP/2 off, six event streams take Chromium's six connections to
             the origin and the `fetch` waits until they close
  websocket  a WebSocket from a page served over h2 is carried by extended CONNECT (RFC 8441):
             the gateway's access log says `h2` for it. Chromium (no flag needed) sends
             `CONNECT` with `:protocol: websocket` on the page's h2 connection when that server
             advertised SETTINGS_ENABLE_CONNECT_PROTOCOL = 1, and opens an HTTP/1.1 connection
             for the WebSocket otherwise, so the case fails when the setting is missing.
Prints one line per case (`PASS name`, `FAIL name: reason` or `SKIP name: reason`), then
`N passed, M failed`.
"""
import argparse
import os
import socket
import ssl
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser_suite  # noqa: E402
from browser_suite import WAIT_MS, Child, Suite, check, run_suite, ws_url  # noqa: E402

EVENT_SOURCES = 10
# Chromium's connections per host over HTTP/1.1.
HTTP1_CONNECTIONS = 6
SETTINGS_ENABLE_CONNECT_PROTOCOL = 0x8


class HTTP2Suite(Suite):
    def start(self, playwright):
        super().start(playwright)
        tls = self.schemes[0]
        # The control: the same gateway with HTTP/2 off (its environment is the TLS gateway's).
        child = self.gateway_logs[tls.gateway]
        env = dict(self.environment_of(child), HTTP2="false")
        control = Child([os.path.abspath(self.args.gateway), "serve"], env=env, name="http/1.1 gateway")
        ready = control.wait_line(lambda l: l.startswith("app-native-gateway ready "), 120)
        port = int(ready.split("listen=", 1)[1].split()[0].rsplit(":", 1)[1])
        self.http1_gateway = f"https://127.0.0.1:{port}"
        self.gateway_logs[self.http1_gateway] = control

    @staticmethod
    def environment_of(child):
        with open(f"/proc/{child.process.pid}/environ", "rb") as handle:
            pairs = [entry.split(b"=", 1) for entry in handle.read().split(b"\0") if b"=" in entry]
        return {name.decode(): value.decode() for name, value in pairs}


def server_settings(origin):
    """The SETTINGS the gateway sends first on an h2 connection (ALPN h2, certificate not checked:
    the suite's own self-signed one)."""
    from hyperframe.frame import Frame, SettingsFrame

    host, port = origin.split("://", 1)[1].rsplit(":", 1)
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=host) as sock:
            check(sock.selected_alpn_protocol() == "h2", f"ALPN chose {sock.selected_alpn_protocol()}")
            sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + SettingsFrame(0).serialize())
            buffer = b""
            while True:
                chunk = sock.recv(65536)
                check(chunk, "the gateway closed before its SETTINGS")
                buffer += chunk
                if len(buffer) >= 9:
                    frame, length = Frame.parse_frame_header(memoryview(buffer[:9]))
                    if len(buffer) >= 9 + length:
                        frame.parse_body(memoryview(buffer[9:9 + length]))
                        check(isinstance(frame, SettingsFrame), f"first frame {type(frame).__name__}")
                        return dict(frame.settings)


# Opens `count` EventSources on protected paths and resolves when `opened` of them delivered an
# event; rejects at the deadline. The sources stay in `window.sources`.
OPEN_EVENT_SOURCES = """([count, opened, deadline]) => new Promise((resolve, reject) => {
    window.sources = [];
    let delivered = 0;
    const timer = setTimeout(() => reject(new Error(delivered + ' of ' + opened + ' event streams delivered')), deadline);
    for (let i = 0; i < count; i++) {
        const source = new EventSource('/events/stream?source=' + i);
        source.onmessage = () => {
            source.onmessage = null;
            delivered += 1;
            if (delivered === opened) { clearTimeout(timer); resolve(delivered); }
        };
        window.sources.push(source);
    }
})"""

# Starts a fetch of a protected path; `window.fetched` resolves to its status.
START_FETCH = """path => {
    window.fetched = fetch(path).then(async response => { await response.text(); return response.status; });
    window.fetchDone = false;
    window.fetched.then(() => { window.fetchDone = true; });
}"""

# The protocol of each resource timing entry and of the navigation.
PROTOCOLS = """() => ({
    navigation: performance.getEntriesByType('navigation').map(e => e.nextHopProtocol),
    resources: performance.getEntriesByType('resource').map(e => [new URL(e.name).pathname, e.nextHopProtocol]),
})"""


def cases(suite):
    gateway = suite.schemes[0].gateway

    def h2():
        context, page = suite.signed_in(gateway)
        try:
            response = page.goto(gateway + "/app/h2-page")
            check(response.status == 200, f"the page answered {response.status}")
            # The body read to its end: the resource timing entry is written when the response ends.
            status = page.evaluate("async () => { const r = await fetch('/app/h2-first-fetch'); await r.text(); return r.status; }")
            check(status == 200, f"the first fetch answered {status}")
            opened = page.evaluate(OPEN_EVENT_SOURCES, [EVENT_SOURCES, EVENT_SOURCES, WAIT_MS])
            check(opened == EVENT_SOURCES, f"{opened} event streams open")
            page.evaluate(START_FETCH, "/app/h2-fetch-beside-ten-streams")
            page.wait_for_function("window.fetchDone", timeout=WAIT_MS)
            status = page.evaluate("window.fetched")
            check(status == 200, f"the fetch beside ten event streams answered {status}")
            open_count = page.evaluate("window.sources.filter(s => s.readyState === EventSource.OPEN).length")
            check(open_count == EVENT_SOURCES, f"{open_count} event streams still open beside the fetch")
            protocols = page.evaluate(PROTOCOLS)
            check(protocols["navigation"] == ["h2"], f"the page came over {protocols['navigation']}")
            fetched = {path: protocol for path, protocol in protocols["resources"]}
            for path in ("/app/h2-first-fetch", "/app/h2-fetch-beside-ten-streams"):
                check(fetched.get(path) == "h2", f"{path} came over {fetched.get(path)} ({protocols['resources']})")
            check(all(protocol == "h2" for _, protocol in protocols["resources"]), f"resources: {protocols['resources']}")
            page.evaluate("window.sources.forEach(s => s.close())")
            entries = suite.access_log(gateway, "/app/h2-fetch-beside-ten-streams")
            check([e.get("protocol") for e in entries] == ["h2"], f"access log: {entries}")
        finally:
            context.close()

    def http1():
        control = suite.http1_gateway
        context, page = suite.signed_in(control)
        try:
            page.goto(control + "/app/http1-page")
            # Six streams take the six connections; the other four wait for one.
            opened = page.evaluate(OPEN_EVENT_SOURCES, [EVENT_SOURCES, HTTP1_CONNECTIONS, WAIT_MS])
            check(opened == HTTP1_CONNECTIONS, f"{opened} event streams open")
            page.evaluate(START_FETCH, "/app/http1-fetch-beside-streams")
            # Not a synchronisation: a window in which the fetch could only complete if Chromium
            # had a seventh connection (a slower machine only makes the wait longer, never shorter).
            page.wait_for_timeout(3000)
            waiting = page.evaluate("!window.fetchDone")
            open_count = page.evaluate("window.sources.filter(s => s.readyState === EventSource.OPEN).length")
            check(waiting, "the fetch completed beside six HTTP/1.1 event streams")
            check(open_count == HTTP1_CONNECTIONS, f"{open_count} event streams open over HTTP/1.1")
            # Closing the streams frees the connections: the fetch completes.
            page.evaluate("window.sources.forEach(s => s.close())")
            page.wait_for_function("window.fetchDone", timeout=WAIT_MS)
            status = page.evaluate("window.fetched")
            check(status == 200, f"the fetch answered {status}")
            protocols = page.evaluate(PROTOCOLS)
            check(protocols["navigation"] == ["http/1.1"], f"the control page came over {protocols['navigation']}")
        finally:
            context.close()

    def websocket():
        settings = server_settings(gateway)
        # Without the setting Chromium keeps WebSockets on HTTP/1.1 (RFC 8441 §3).
        check(settings.get(SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1,
              "the gateway does not advertise SETTINGS_ENABLE_CONNECT_PROTOCOL")
        context, page = suite.signed_in(gateway)
        try:
            # The page's own h2 connection, where the setting arrived, carries the WebSocket.
            page.goto(gateway + "/app/ws-page")
            path = "/ws/over-h2"
            page.evaluate("""url => {
                window.wsLog = [];
                window.socket = new WebSocket(url);
                socket.onopen = () => { wsLog.push('open'); socket.send('hello over h2'); };
                socket.onmessage = event => wsLog.push('message:' + event.data);
                socket.onclose = event => wsLog.push('close:' + event.code);
            }""", ws_url(gateway) + path)
            page.wait_for_function("wsLog.some(e => e.startsWith('message:') || e.startsWith('close:'))", timeout=WAIT_MS)
            log = page.evaluate("wsLog")
            page.evaluate("socket.close(1000)")
            check(log[:2] == ["open", "message:hello over h2"], f"WebSocket over h2: {log}")
            entries = suite.access_log(gateway, path)
            check([e.get("protocol") for e in entries] == ["h2"], f"the WebSocket's access log: {entries}")
        finally:
            context.close()

    selected = {"h2": h2, "http1": http1, "websocket": websocket}
    for name, body in selected.items():
        if suite.args.cases is None or name == suite.args.cases:
            yield name, body


class Skip(Exception):
    pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gateway", required=True, help="path of the app-native-gateway binary")
    parser.add_argument("--only", dest="cases", choices=["h2", "http1", "websocket"], help="run one case")
    parser.add_argument("--timeout", type=float, default=600, help="seconds before the whole run is abandoned")
    args = parser.parse_args()
    args.only = "tls"
    args.screenshots = None

    from playwright.sync_api import Error

    browser_suite.Error = Error
    suite = HTTP2Suite(args)
    original = suite.case

    def case(name, body):
        def guarded():
            try:
                body()
            except Skip as skip:
                print(f"SKIP {name}: {skip}", flush=True)
        return original(name, guarded)

    suite.case = case
    return run_suite(suite, args, cases)


if __name__ == "__main__":
    sys.exit(main())
