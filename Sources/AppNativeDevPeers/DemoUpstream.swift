import AppNativeHTTP
import AppNativeJSON
public import AppNativeServer
import AppNativeSignIn

/// The built-in demo upstream of `make run`: shows the identity it received from the gateway and
/// implements the native routes (a widget feed with every widget kind, approvals, option lookups,
/// documents, live activities), so the whole app contract can be tried without a backend.
/// DEV ONLY: it trusts the identity headers because only the gateway can reach it (loopback).
public final class DemoUpstreamHandler: HTTPExchangeHandler {
    private let nativePrefix: String
    /// The gateway's `AUTH_PATH_PREFIX`, for the page's sign-out button.
    private let authPathPrefix: String
    private var documentCount = 0

    public init(nativePrefix: String = "/api", authPathPrefix: String = "/.auth/") {
        self.nativePrefix = nativePrefix
        self.authPathPrefix = authPathPrefix
    }

    public func serve(_ exchange: HTTPExchange) {
        guard exchange.hasRequestBody else {
            answer(exchange, bodyBytes: 0)
            return
        }
        var received = 0
        exchange.readBody(onChunk: { received += $0.count }, onEnd: { [self] _ in answer(exchange, bodyBytes: received) })
    }

    private func answer(_ exchange: HTTPExchange, bodyBytes: Int) {
        let target = exchange.request.target
        let path = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
        let route = path.hasPrefix(nativePrefix + "/") ? String(path.dropFirst(nativePrefix.count + 1)) : nil
        let body: String
        switch (exchange.request.method, route) {
        case ("GET", "widgets"): body = Self.widgetFeed
        case ("GET", "approvals"): body = Self.approvalFeed
        case ("POST", "widget-options"): body = #"{"options":[{"value":"holiday","label":"Holiday"},{"value":"training","label":"Training"}],"emptyText":"Nothing found"}"#
        case ("POST", "widget-actions"): body = #"{"ok":true,"message":"Done (demo upstream)","style":"success"}"#
        case ("POST", "approval-decisions"): body = #"{"ok":true,"message":"Recorded (demo upstream)","style":"success"}"#
        case ("POST", "documents"):
            documentCount += 1
            body = #"{"id":"demo-document-\#(documentCount)"}"#
        case ("POST", "devices"), ("POST", "locations"), ("POST", "notification-actions"), ("POST", "live-activities"):
            body = #"{"ok":true}"#
        default:
            let identity = exchange.request.headers.filter { $0.name.lowercased().hasPrefix("x-appnative-") }
            if exchange.request.headers.first("Accept")?.contains("text/html") == true {
                let page = Self.identityPage(identity: identity, method: exchange.request.method, target: target, logout: authPathPrefix + "logout")
                exchange.respond(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(page.utf8))
                return
            }
            body = Self.identityEcho(identity: identity, method: exchange.request.method, target: target, bodyBytes: bodyBytes)
        }
        exchange.respond(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    /// The identity the gateway sent, as JSON (for `curl` and `fetch`).
    private static func identityEcho(identity: [HTTPHeaders.Field], method: String, target: String, bodyBytes: Int) -> String {
        let echo: JSONValue = .object(JSONObject([
            ("message", .string("hello from the demo upstream")),
            ("method", .string(method)),
            ("path", .string(target)),
            ("body_bytes", .number(JSONNumber(bodyBytes))),
            ("identity", .object(JSONObject(identity.map { ($0.name, JSONValue.string($0.value)) }))),
        ]))
        return String(decoding: JSONSerializer.serialize(echo), as: UTF8.self) + "\n"
    }

    /// The identity the gateway sent, as a page (for a browser that signed in).
    private static func identityPage(identity: [HTTPHeaders.Field], method: String, target: String, logout: String) -> String {
        let rows = identity.map { "<tr><th>\(HTMLText.escaped($0.name))</th><td>\(HTMLText.escaped($0.value))</td></tr>" }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Demo upstream</title>
            <style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:48rem}th{text-align:left;padding-right:1rem}</style>
            </head><body>
            <h1>Hello from the demo upstream</h1>
            <p>The gateway verified who you are and sent it with <code>\(HTMLText.escaped(method)) \(HTMLText.escaped(target))</code>:</p>
            <table id="identity">
            \(rows.joined(separator: "\n"))
            </table>
            <form method="post" action="\(HTMLText.escaped(logout))"><button type="submit">Sign out</button></form>
            </body></html>

            """
    }

    public func exchangeDidEnd(_ exchange: HTTPExchange) {}

    /// One widget of every kind (contract/models.md §1.2).
    static let widgetFeed = #"""
        {"schema":1,"widgets":[
        {"id":"welcome","kind":"text","title":"Welcome","data":{"markdown":"Signed in through the **gateway**"}},
        {"id":"open-tickets","kind":"kpi","size":"small","title":"Open tickets","data":{"value":12,"unit":"tickets","trend":{"direction":"down","text":"-3","positive":true}}},
        {"id":"week","kind":"stats","title":"This week","data":{"items":[{"label":"Visits","value":31},{"label":"Orders","value":"7"}]}},
        {"id":"tasks","kind":"list","title":"Tasks","data":{"items":[{"id":"t1","title":"Sign the contract","subtitle":"Due today","actions":[{"id":"done","label":"Done"}]}],"maxVisible":3}},
        {"id":"sales","kind":"chart","title":"Sales","data":{"type":"line","series":[{"name":"2026","points":[{"x":"Jan","y":3},{"x":"Feb","y":5}]}]}},
        {"id":"quota","kind":"progress","title":"Quota","data":{"value":0.6,"total":1,"style":"ring"}},
        {"id":"leave","kind":"action","title":"Request leave","data":{"text":"How many days?","fields":[{"id":"days","type":"number","label":"Days","required":true},{"id":"reason","type":"select","remote":true,"label":"Reason"}],"buttons":[{"id":"submit","label":"Send"}]}},
        {"id":"news","kind":"news","title":"News","data":{"items":[{"id":"n1","title":"Canteen reopens","date":"2026-11-30T08:00:00Z"}]}},
        {"id":"intranet","kind":"web","title":"Intranet","data":{"url":"https://intranet.example.com/widget","scrollable":true}}
        ]}
        """#

    static let approvalFeed = #"""
        {"approvals":[{"id":"po-1042","title":"Purchase order 1042","amount":"EUR 1,200.00","requester":"Sam Doe","createdAt":"2026-11-29T10:00:00Z","urgent":true,"details":[{"label":"Supplier","value":"ACME"}],"rejectComment":"required"}]}
        """#
}

@available(*, unavailable, message: "loop-owned")
extension DemoUpstreamHandler: Sendable {}
