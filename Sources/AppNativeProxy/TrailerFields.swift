public import AppNativeHTTP

/// What of a client's request trailer section reaches the upstream (RFC 9110 §6.5).
///
/// A trailer arrives after the head went through the proxy's field removal (the gateway's forged
/// identity headers) and the forwarding rules, so it gets the same removal here, plus every field
/// RFC 9110 §6.5.1 keeps out of trailers (framing, routing, authentication, request modifiers,
/// content and control data, and the routing and method overrides of `RoutingOverrideFields`
/// whatever the head may carry): an upstream that merges trailers into its headers must never
/// find an identity, a length, a host or another path or method in them.
/// What is left (checksums, signatures, timing) is forwarded as trailers.
public enum TrailerFields: Sendable {
    /// Names never forwarded in a trailer section, lower-cased.
    static let refusedNames: Set<String> = [
        // framing and connection management
        "content-length", "transfer-encoding", "trailer", "connection", "keep-alive", "proxy-connection", "te", "upgrade",
        // routing and request modifiers
        "host", "expect", "max-forwards", "range", "if-match", "if-none-match", "if-modified-since", "if-unmodified-since",
        "if-range", "cache-control", "pragma",
        // authentication and cookies
        "authorization", "proxy-authorization", "cookie", "set-cookie", "www-authenticate", "proxy-authenticate",
        // content metadata the head describes
        "content-type", "content-encoding", "content-range", "content-language", "content-location",
        // what the gateway itself writes about the client connection and the request
        "forwarded", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port",
        "x-forwarded-prefix", "x-real-ip", "x-request-id", "proxy",
    ]

    /// `trailers` without `removedFields` and any field that may not travel in a trailer; nil when
    /// nothing is left.
    public static func forwardable(_ trailers: HTTPHeaders?, removing removedFields: FieldNamePatterns) -> HTTPHeaders? {
        guard var trailers, !trailers.isEmpty else { return nil }
        removedFields.remove(from: &trailers)
        RoutingOverrideFields.patterns.remove(from: &trailers)
        trailers.removeAll(where: { field in
            let name = field.name.lowercased()
            return refusedNames.contains(name) || name.hasPrefix("proxy-") || name.contains("_")
        })
        return trailers.isEmpty ? nil : trailers
    }
}
