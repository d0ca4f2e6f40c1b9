/// The WebSocket opening handshake as the gateway checks it before a connection may become a
/// raw tunnel (RFC 6455 §4.1, §4.2.2; RFC 9110 §7.8).
///
/// Only a request that passes `isUpgradeRequest` is forwarded with its upgrade, and only a 101
/// that `isAcceptance(_:)` approves turns it into a tunnel: any other 101 would hand the client
/// an unauthenticated, unfiltered byte stream to the upstream.
public enum WebSocketHandshake: Sendable {
    /// Whether `request` is a complete WebSocket upgrade request: GET over HTTP/1.1 or later,
    /// `Connection` listing `upgrade`, a single `Upgrade: websocket`, a `Sec-WebSocket-Key` that
    /// is the base64 of 16 bytes, and `Sec-WebSocket-Version: 13`.
    public static func isUpgradeRequest(_ request: HTTPRequestHead) -> Bool {
        guard request.method == "GET", request.version.hasHTTP11Semantics else { return false }
        let headers = request.headers
        guard headers.containsToken("upgrade", inField: "Connection"),
            headers.count(of: "Upgrade") == 1, headers.first("Upgrade").map(isWebSocketProtocol) == true,
            headers.count(of: "Sec-WebSocket-Key") == 1, let key = headers.first("Sec-WebSocket-Key"),
            isNonce(key),
            headers.count(of: "Sec-WebSocket-Version") == 1, headers.first("Sec-WebSocket-Version") == "13"
        else { return false }
        return true
    }

    /// Whether a 101 answer completes a WebSocket upgrade: it switches to `websocket` and keeps
    /// `Connection: upgrade` (RFC 6455 §4.2.2); the client checks `Sec-WebSocket-Accept` itself.
    public static func isAcceptance(_ response: HTTPResponseHead) -> Bool {
        response.status == 101
            && response.headers.containsToken("upgrade", inField: "Connection")
            && response.headers.containsToken("websocket", inField: "Upgrade")
    }

    /// RFC 6455 §4.1: the key is 16 random bytes in base64, so 22 alphabet characters and `==`.
    private static func isNonce(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        return bytes[..<22].allSatisfy { byte in
            ByteClass.isDigit(byte) || (ByteClass.lowercased(byte) >= UInt8(ascii: "a") && ByteClass.lowercased(byte) <= UInt8(ascii: "z"))
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
    }

    /// An Upgrade value naming exactly one protocol, `websocket` (any case; no version).
    private static func isWebSocketProtocol(_ value: String) -> Bool {
        value.lowercased() == "websocket"
    }
}
