public import AppNativeHTTP
public import AppNativeServer

/// `X-Forwarded-For`/`-Proto`/`-Host` and `Forwarded` (RFC 7239) for the upstream request.
///
/// From a trusted proxy the incoming values are kept and extended; from anyone else they are
/// replaced, so a client cannot claim another address, scheme or host.
public enum ForwardingHeaders: Sendable {
    public static let names = ["X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded", "X-Real-IP"]

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
        for name in names { headers.remove(name) }
        headers.add(name: "X-Forwarded-For", value: incomingFor.isEmpty ? peerHost : incomingFor + ", " + peerHost)
        headers.add(name: "X-Forwarded-Proto", value: proto)
        if let host { headers.add(name: "X-Forwarded-Host", value: host) }
        let node = peer?.family == .inet6 ? "\"[\(peerHost)]\"" : peerHost
        var element = "for=\(node);proto=\(proto)"
        if let host, host.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "\"" && $0 != ";" && $0 != "," }) {
            element += ";host=\(host.contains(":") ? "\"\(host)\"" : host)"
        }
        headers.add(name: "Forwarded", value: incomingForwarded.isEmpty ? element : incomingForwarded + ", " + element)
    }
}
