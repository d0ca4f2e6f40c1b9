public import AppNativeServer

/// Where and how the proxy reaches the upstream (`UPSTREAM_URL` and the upstream timeouts).
public struct UpstreamConfiguration: Sendable {
    /// The URL's host and port; a name is looked up again every `dnsRefresh` by `addresses`.
    public private(set) var target: UpstreamTarget
    /// The live addresses of `target`, shared by every loop's pool (see `UpstreamAddresses`).
    public private(set) var addresses: UpstreamAddresses
    /// The URL's `host[:port]` (the port only when it is not the scheme's default): the `Host`
    /// sent when the client sent none (HTTP/1.0), and always with `hostHeaderMode` `.upstream`.
    public var hostHeader: String
    /// Which `Host` the upstream gets (`UPSTREAM_HOST_HEADER`).
    public var hostHeaderMode = UpstreamHostHeader.client
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
        target = UpstreamTarget(address: address)
        addresses = UpstreamAddresses(target: target)
        self.hostHeader = hostHeader
        self.pathPrefix = pathPrefix
    }

    /// How often the host is looked up again (`UPSTREAM_DNS_REFRESH`) and how long a refused or
    /// timed-out address is skipped (`UPSTREAM_EJECT_SECONDS`); set before the gateway starts.
    public mutating func resolve(every refresh: Duration, ejectingFor ejection: Duration) {
        addresses = UpstreamAddresses(target: target, refreshInterval: refresh, ejectFor: ejection)
    }

    /// Uses `other`'s addresses when they are for the same host and port (a reloaded route
    /// keeps its resolver, its ejections and its pooled connections); otherwise changes nothing.
    public mutating func shareAddresses(_ other: UpstreamAddresses) {
        guard other.target == target, other.refreshInterval == addresses.refreshInterval, other.ejection == addresses.ejection else {
            return
        }
        addresses = other
    }

    /// Why a URL cannot be used; the message does not name the setting (the caller does).
    public struct InvalidURL: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Parses `http(s)://host[:port][/prefix]`. The host is an IP literal, `localhost`, or a name
    /// looked up off the event loops from start-up on (never per request; a name that does not
    /// resolve yet is not an error here). `https` upstreams are verified against `caFile`, or
    /// the system trust store when it is `nil`, for the URL's host whatever address is dialled.
    public init(url: String, caFile: String? = nil) throws(InvalidURL) {
        let isSecure = url.hasPrefix("https://")
        guard isSecure || url.hasPrefix("http://") else {
            throw InvalidURL(description: "must start with http:// or https://")
        }
        let rest = url.dropFirst(isSecure ? "https://".count : "http://".count)
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<authorityEnd])
        var prefix = String(rest[authorityEnd...])
        while prefix.hasSuffix("/") { prefix.removeLast() }
        guard !authority.isEmpty, !authority.contains("@") else {
            throw InvalidURL(description: "needs a host and no user info")
        }
        // The prefix is written in front of every request target, which must be visible ASCII
        // (RFC 9112 §3.2; the serializer stops the process on anything else); a query or
        // fragment in it would swallow the client's path.
        guard prefix.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }) else {
            throw InvalidURL(description: "the path must be visible ASCII without `?` or `#` (percent-encode spaces and non-ASCII)")
        }
        let hasPort = authority.hasPrefix("[") ? authority.contains("]:") : authority.contains(":")
        let defaultPort: UInt16 = isSecure ? 443 : 80
        var host = authority
        var port = defaultPort
        if hasPort, let colon = authority.lastIndex(of: ":") {
            guard let parsed = UInt16(authority[authority.index(after: colon)...]), parsed > 0 else {
                throw InvalidURL(description: "has an invalid port: \(authority)")
            }
            port = parsed
            host = String(authority[..<colon])
        }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.contains(":") else { throw InvalidURL(description: "has an invalid IPv6 host: \(authority)") }
            host = String(host.dropFirst().dropLast())
        }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
            throw InvalidURL(description: "has an invalid host: \(authority)")
        }
        if host.contains(":") {
            guard (try? SocketAddress(parsing: "[\(host)]:\(port)")) != nil else {
                throw InvalidURL(description: "has an invalid IPv6 host: \(authority)")
            }
        }
        target = UpstreamTarget(host: host, port: port)
        addresses = UpstreamAddresses(target: target)
        let bracketed = host.contains(":") ? "[\(host)]" : host
        hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
        pathPrefix = prefix
        if isSecure {
            do {
                tls = try TLSClientContext(serverName: host, caFile: caFile)
            } catch {
                throw InvalidURL(description: error.description)
            }
        }
    }
}

/// Which `Host` header the upstream receives (`UPSTREAM_HOST_HEADER`).
public enum UpstreamHostHeader: String, Sendable, CaseIterable {
    /// The client's `Host`, as received (a backend serving several client-facing names).
    case client
    /// The upstream URL's `host[:port]` (a backend addressed by its own name, such as Azure App
    /// Service); `X-Forwarded-Host` still carries the client's.
    case upstream
}
