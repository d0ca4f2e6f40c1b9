import AppNativeHTTP
public import AppNativeServer

/// The built-in demo upstream of `make run`: shows the identity it received from the gateway and
/// implements the native routes (a widget feed with every widget kind, approvals, option lookups,
/// documents, live activities), so the whole app contract can be tried without a backend.
/// DEV ONLY: it trusts the identity headers because only the gateway can reach it (loopback).
public final class DemoUpstreamHandler: HTTPExchangeHandler {
    private let nativePrefix: String
    private var documentCount = 0

    public init(nativePrefix: String = "/api") {
        self.nativePrefix = nativePrefix
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
            body = identityEcho(exchange, bodyBytes: bodyBytes)
        }
        exchange.respond(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    private func identityEcho(_ exchange: HTTPExchange, bodyBytes: Int) -> String {
        var identity: [String] = []
        for field in exchange.request.headers where field.name.lowercased().hasPrefix("x-appnative-") {
            identity.append("\(JSONErrorBody.quotedString(field.name)):\(JSONErrorBody.quotedString(field.value))")
        }
        return "{\"message\":\"hello from the demo upstream\",\"method\":\(JSONErrorBody.quotedString(exchange.request.method)),"
            + "\"path\":\(JSONErrorBody.quotedString(exchange.request.target)),\"body_bytes\":\(bodyBytes),"
            + "\"identity\":{\(identity.joined(separator: ","))}}\n"
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
