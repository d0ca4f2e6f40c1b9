import AppNativeHTTP
import Testing

/// RFC 6455 §4.1 / §4.2.2 as the gateway checks them before a connection may become a tunnel.
@Suite("WebSocket handshake")
struct WebSocketHandshakeTests {
    static func request(
        method: String = "GET",
        version: HTTPVersion = .http1_1,
        _ fields: [(String, String)] = [
            ("Host", "h"), ("Connection", "keep-alive, Upgrade"), ("Upgrade", "websocket"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13"),
        ]
    ) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        return HTTPRequestHead(method: method, target: "/ws", version: version, headers: headers)
    }

    static let valid: [(String, String)] = [
        ("Host", "h"), ("Connection", "Upgrade"), ("Upgrade", "WebSocket"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13"),
    ]

    static func without(_ name: String, replacing value: String? = nil) -> [(String, String)] {
        valid.compactMap { field in
            guard field.0 == name else { return field }
            return value.map { (name, $0) }
        }
    }

    @Test("a complete handshake is an upgrade request")
    func complete() {
        #expect(WebSocketHandshake.isUpgradeRequest(Self.request()))
        #expect(WebSocketHandshake.isUpgradeRequest(Self.request(Self.valid)))
    }

    @Test("anything less is not: method, version, Connection, Upgrade, key, version field")
    func incomplete() {
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(method: "POST", Self.valid)))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(method: "OPTIONS", Self.valid)))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(version: .http1_0, Self.valid)))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(Self.without("Connection"))))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(Self.without("Connection", replacing: "keep-alive"))))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(Self.without("Upgrade"))))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(Self.without("Upgrade", replacing: "h2c"))))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(Self.without("Upgrade", replacing: "websocket, h2c"))))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(Self.without("Sec-WebSocket-Key"))))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(Self.without("Sec-WebSocket-Key", replacing: "short=="))))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(Self.without("Sec-WebSocket-Key", replacing: "dGhlIHNhbXBsZSBub25jZQ!="))))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(Self.without("Sec-WebSocket-Version"))))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(Self.without("Sec-WebSocket-Version", replacing: "8"))))
        #expect(!WebSocketHandshake.isUpgradeRequest(Self.request(Self.valid + [("Upgrade", "websocket")])))
    }

    @Test("a 101 completes the upgrade only when it switches to websocket")
    func acceptance() {
        func answer(_ status: Int, _ fields: [(String, String)]) -> HTTPResponseHead {
            var headers = HTTPHeaders()
            for (name, value) in fields { headers.add(name: name, value: value) }
            return HTTPResponseHead(status: status, reason: "R", headers: headers)
        }
        #expect(WebSocketHandshake.isAcceptance(answer(101, [("Upgrade", "websocket"), ("Connection", "Upgrade")])))
        #expect(!WebSocketHandshake.isAcceptance(answer(101, [("Upgrade", "h2c"), ("Connection", "Upgrade")])))
        #expect(!WebSocketHandshake.isAcceptance(answer(101, [("Upgrade", "websocket")])))
        #expect(!WebSocketHandshake.isAcceptance(answer(200, [("Upgrade", "websocket"), ("Connection", "Upgrade")])))
    }
}
