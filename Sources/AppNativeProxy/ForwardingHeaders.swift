public import AppNativeHTTP
public import AppNativeServer

/// `X-Forwarded-For`/`-Proto`/`-Host` and `Forwarded` (RFC 7239) for the upstream request.
///
/// From a trusted proxy the incoming values are kept and extended; from anyone else they are
/// replaced, so a client cannot claim another address, scheme or host.
public enum ForwardingHeaders: Sendable {
    public static let names = ["X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded", "X-Real-IP"]
    private static let nameBytes = names.map { Array($0.utf8) }

    /// - Parameter host: the Host the request is forwarded with (from an absolute-form target's
    ///   authority, else the received Host).
    public static func apply(
        to headers: inout HTTPHeaders,
        original: HTTPHeaders,
        peer: SocketAddress?,
        isSecure: Bool,
        trusted: TrustedProxies,
        host requestHost: String?
    ) {
        let peerHost = peer?.host ?? "unknown"
        let isTrusted = trusted.contains(peerHost)
        let incomingFor = isTrusted ? original.values("X-Forwarded-For").joined(separator: ", ") : ""
        let incomingForwarded = isTrusted ? original.values("Forwarded").joined(separator: ", ") : ""
        let proto = isTrusted ? (original.first("X-Forwarded-Proto") ?? (isSecure ? "https" : "http")) : (isSecure ? "https" : "http")
        // The host the request is for: an absolute-form target's authority wins over Host (RFC 9112 §3.2.2).
        let host = isTrusted ? (original.first("X-Forwarded-Host") ?? requestHost) : requestHost
        headers.remove(anyOf: nameBytes)
        headers.add(name: "X-Forwarded-For", value: incomingFor.isEmpty ? peerHost : incomingFor + ", " + peerHost)
        headers.add(name: "X-Forwarded-Proto", value: proto)
        if let host { headers.add(name: "X-Forwarded-Host", value: host) }
        // Composed as bytes in one reserved buffer and added as bytes: `String` appends and
        // `a + b` temporaries cost an allocation or a slow path each, several per request.
        // Every byte of our element is ASCII (an IP address, a scheme, a checked host).
        var element: [UInt8] = []
        element.reserveCapacity(40 + peerHost.utf8.count + (host?.utf8.count ?? 0))
        element.append(contentsOf: "for=".utf8)
        if peer?.family == .inet6 {
            element.append(contentsOf: "\"[".utf8)
            element.append(contentsOf: peerHost.utf8)
            element.append(contentsOf: "]\"".utf8)
        } else {
            element.append(contentsOf: peerHost.utf8)
        }
        element.append(contentsOf: ";proto=".utf8)
        element.append(contentsOf: proto.utf8)
        if let host, isForwardedHostValue(host) {
            let quoted = host.utf8.contains(UInt8(ascii: ":"))
            element.append(contentsOf: (quoted ? ";host=\"" : ";host=").utf8)
            element.append(contentsOf: host.utf8)
            if quoted { element.append(UInt8(ascii: "\"")) }
        }
        if incomingForwarded.isEmpty {
            element.withUnsafeBufferPointer { headers.add(name: "Forwarded", valueBytes: $0) }
        } else {
            // Behind a trusted proxy: its elements are Latin-1 text, added through the string path.
            headers.add(name: "Forwarded", value: incomingForwarded + ", " + String(decoding: element, as: UTF8.self))
        }
    }

    /// Whether `host` can go into a `Forwarded` element as a token or quoted string: ASCII without
    /// White_Space (09–0D, 20), quote, `;` or `,` (the set a Character test would refuse: a CRLF
    /// grapheme is whitespace, any non-ASCII Character is refused). Bytes, not Characters: no
    /// grapheme breaking or Unicode property lookups per request.
    private static func isForwardedHostValue(_ host: String) -> Bool {
        for byte in host.utf8 {
            switch byte {
            case 0x80...0xFF, 0x09...0x0D, 0x20, 0x22, 0x3B, 0x2C: return false
            default: continue
            }
        }
        return true
    }
}
