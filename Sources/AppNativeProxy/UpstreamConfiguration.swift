public import AppNativeServer

/// Where and how the proxy reaches the upstream (`UPSTREAM_URL` and the upstream timeouts).
public struct UpstreamConfiguration: Sendable {
    /// The upstream's address (an IP literal or `localhost`; names are resolved at start-up).
    public var address: SocketAddress
    /// The `Host` sent when the client sent none (HTTP/1.0).
    public var hostHeader: String
    /// Path prefix of `UPSTREAM_URL` prepended to every request target ("" for none).
    public var pathPrefix: String
    public var connectTimeout: Duration = .seconds(5)
    /// From the request head sent until the response head arrives (answered 504).
    public var responseTimeout: Duration = .seconds(60)
    /// Idle pooled connections are closed after this long.
    public var idleTimeout: Duration = .seconds(60)
    /// Idle connections kept per event loop.
    public var maxIdleConnectionsPerLoop = 64
    /// TLS to the upstream (`https://` URLs): certificate verified for the URL's host.
    public var tls: TLSClientContext?
    /// Queued request bytes above which the client's body is paused.
    public var writeHighWatermark = 256 * 1024

    public init(address: SocketAddress, hostHeader: String, pathPrefix: String = "") {
        self.address = address
        self.hostHeader = hostHeader
        self.pathPrefix = pathPrefix
    }

    public struct InvalidURL: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Parses `http(s)://host[:port][/prefix]`. The host must be an IP literal or `localhost`, or be
    /// resolvable now (resolution happens once, at start-up, never per request). `https` upstreams
    /// are verified against `caFile`, or the system trust store when it is `nil`.
    public init(url: String, caFile: String? = nil) throws(InvalidURL) {
        let isSecure = url.hasPrefix("https://")
        guard isSecure || url.hasPrefix("http://") else {
            throw InvalidURL(description: "UPSTREAM_URL must start with http:// or https://")
        }
        let rest = url.dropFirst(isSecure ? "https://".count : "http://".count)
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<authorityEnd])
        var prefix = String(rest[authorityEnd...])
        while prefix.hasSuffix("/") { prefix.removeLast() }
        guard !authority.isEmpty, !authority.contains("@") else {
            throw InvalidURL(description: "UPSTREAM_URL needs a host and no user info")
        }
        // The prefix is written in front of every request target, which must be visible ASCII
        // (RFC 9112 §3.2; the serializer stops the process on anything else); a query or
        // fragment in it would swallow the client's path.
        guard prefix.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }) else {
            throw InvalidURL(description: "UPSTREAM_URL path must be visible ASCII without `?` or `#` (percent-encode spaces and non-ASCII)")
        }
        let hasPort = authority.hasPrefix("[") ? authority.contains("]:") : authority.contains(":")
        let withPort = hasPort ? authority : authority + (isSecure ? ":443" : ":80")
        do {
            address = try SocketAddress(parsing: withPort)
        } catch {
            guard let resolved = HostResolver.resolve(withPort) else {
                throw InvalidURL(description: "UPSTREAM_URL host cannot be resolved: \(authority)")
            }
            address = resolved
        }
        hostHeader = authority
        pathPrefix = prefix
        if isSecure {
            var serverName = authority
            if serverName.hasPrefix("["), let close = serverName.firstIndex(of: "]") {
                serverName = String(serverName[serverName.index(after: serverName.startIndex)..<close])
            } else if let colon = serverName.lastIndex(of: ":") {
                serverName = String(serverName[..<colon])
            }
            do {
                tls = try TLSClientContext(serverName: serverName, caFile: caFile)
            } catch {
                throw InvalidURL(description: error.description)
            }
        }
    }
}
