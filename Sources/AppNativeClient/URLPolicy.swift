internal import Glibc

// Unsafe: inet_pton writes at most the size of the address struct it is given; the bytes are
// copied out of that struct.

/// The outbound URL rules, shared by the client and by configuration that stores URLs
/// (the JWKS URL is checked when the configuration is loaded, not when the first token arrives).
///
/// - `https` is required. `http` is allowed only when the caller opts in *and* the host is a
///   loopback address, so a local fake can run without TLS but a misconfigured production
///   URL cannot silently drop it.
/// - The URL must have a host and must not carry credentials (they would be sent as Basic
///   authentication and end up in logs that print URLs).
public enum URLPolicy: Sendable {
    /// Whether `host` names the loopback interface: `localhost`, an IPv4 address in
    /// 127.0.0.0/8 (RFC 1122 §3.2.1.3), `::1` (RFC 4291 §2.5.3) or the IPv4-mapped form of a
    /// 127/8 address. IPv6 literals may carry URL brackets.
    ///
    /// Only literal addresses and `localhost` count: a DNS name that happens to resolve to
    /// 127.0.0.1 does not, since its answer can change between the check and the connection.
    /// IPv4 must be strict dotted decimal; curl's parser already normalises the other numeric
    /// forms (`127.1`) before the client calls this.
    public static func isLoopbackHost(_ host: String) -> Bool {
        if host.isEqualIgnoringASCIICase("localhost") { return true }
        var literal = Substring(host)
        let isBracketed = literal.hasPrefix("[") && literal.hasSuffix("]")
        if isBracketed {
            literal = literal.dropFirst().dropLast()
        }
        var ipv4 = in_addr()
        if !isBracketed, unsafe inet_pton(AF_INET, String(literal), &ipv4) == 1 {
            // s_addr is in network byte order: its first byte in memory is the first octet.
            return unsafe withUnsafeBytes(of: &ipv4) { unsafe $0[0] == 127 }
        }
        var ipv6 = in6_addr()
        if unsafe inet_pton(AF_INET6, String(literal), &ipv6) == 1 {
            // The sixteen address bytes, copied out of the C struct once.
            let bytes = unsafe withUnsafeBytes(of: &ipv6) { unsafe Array($0) }
            let isLoopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
            let isMappedLoopback =
                bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
            return isLoopback || isMappedLoopback
        }
        return false
    }

    /// Checks `url` against the outbound rules without any network traffic.
    ///
    /// - Parameters:
    ///   - url: an absolute URL.
    ///   - allowsCleartextOnLoopback: whether `http://` is acceptable when the host is loopback.
    /// - Throws: `ClientError` with `.invalidURL` (does not parse, no host, credentials) or
    ///   `.insecureScheme` (not `https`, or `http` where it is not allowed).
    public static func validateOutbound(url: String, allowsCleartextOnLoopback: Bool) throws(ClientError) {
        _ = try outboundTarget(url: url, allowsCleartextOnLoopback: allowsCleartextOnLoopback)
    }

    /// The checks of `validateOutbound`, returning what the engine needs to know.
    static func outboundTarget(url: String, allowsCleartextOnLoopback: Bool) throws(ClientError) -> OutboundTarget {
        let parsed = try parse(url, what: "URL", unsupportedScheme: .insecureScheme)
        guard let scheme = parsed.scheme?.lowercased() else {
            throw ClientError(.invalidURL, reason: "URL has no scheme")
        }
        guard scheme == "https" || scheme == "http" else {
            throw ClientError(.insecureScheme, reason: "https is required (scheme \(scheme))")
        }
        guard let host = parsed.host, !host.isEmpty else {
            throw ClientError(.invalidURL, reason: "URL has no host")
        }
        guard parsed.user == nil, parsed.password == nil else {
            throw ClientError(.invalidURL, reason: "URL must not carry credentials (host \(host))")
        }
        let port = parsed.port ?? (scheme == "https" ? 443 : 80)
        guard scheme == "http" else {
            return OutboundTarget(isCleartext: false, host: host, port: port)
        }
        guard allowsCleartextOnLoopback else {
            throw ClientError(.insecureScheme, reason: "https is required (http not enabled for host \(host))")
        }
        guard isLoopbackHost(host) else {
            throw ClientError(.insecureScheme, reason: "http is allowed only on loopback; host \(host) is not")
        }
        return OutboundTarget(isCleartext: true, host: host, port: port)
    }

    /// Checks an explicit proxy URL: `http` or `https`, with a host. Credentials are allowed
    /// (proxy authentication) and never echoed.
    static func checkProxy(url: String) throws(ClientError) {
        let parsed = try parse(url, what: "proxy URL", unsupportedScheme: .invalidURL)
        guard let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ClientError(.invalidURL, reason: "proxy URL scheme must be http or https")
        }
        guard let host = parsed.host, !host.isEmpty else {
            throw ClientError(.invalidURL, reason: "proxy URL has no host")
        }
    }

    private static func parse(
        _ url: String,
        what: String,
        unsupportedScheme: ClientError.Code
    ) throws(ClientError) -> CurlURL {
        do {
            return try CurlURL(parsing: url)
        } catch {
            // The URL text itself never enters the reason: paths and queries carry tokens.
            switch error {
            case .unsupportedScheme:
                throw ClientError(unsupportedScheme, reason: "\(what) scheme is not supported")
            case .malformed(let detail):
                throw ClientError(.invalidURL, reason: "\(what) does not parse: \(detail)")
            case .outOfMemory:
                throw ClientError(.transport, reason: "out of memory parsing \(what)")
            }
        }
    }
}
