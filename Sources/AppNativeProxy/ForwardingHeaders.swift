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
        // Appended piece by piece into one reserved buffer: `a + b` temporaries cost an
        // allocation each, several per request.
        var element = ""
        element.reserveCapacity(32 + peerHost.utf8.count + (host?.utf8.count ?? 0))
        element.append("for=")
        if peer?.family == .inet6 {
            element.append("\"[")
            element.append(peerHost)
            element.append("]\"")
        } else {
            element.append(peerHost)
        }
        element.append(";proto=")
        element.append(proto)
        // Bytes, not Characters: no grapheme breaking or Unicode property lookups per request.
        // ASCII without White_Space (09–0D, 20), quote, `;` or `,`: the same set as the Character
        // test (a CRLF grapheme is whitespace; any non-ASCII Character is refused).
        if let host, host.utf8.allSatisfy({ $0 < 0x80 && !(0x09...0x0D).contains($0) && $0 != 0x20 && $0 != 0x22 && $0 != 0x3B && $0 != 0x2C }) {
            let quoted = host.utf8.contains(0x3A)
            element.append(quoted ? ";host=\"" : ";host=")
            element.append(host)
            if quoted { element.append("\"") }
        }
        headers.add(name: "Forwarded", value: incomingForwarded.isEmpty ? element : incomingForwarded + ", " + element)
    }
}
