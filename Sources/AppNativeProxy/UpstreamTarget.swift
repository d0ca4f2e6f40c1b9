public import AppNativeServer

/// Where one upstream URL points: its host as written (a name or an IP literal) and port. A name
/// is resolved again and again by its `UpstreamAddresses`; a literal is its own one address.
/// A route table can hold several of these, each with its own addresses.
public struct UpstreamTarget: Sendable, Hashable, CustomStringConvertible {
    /// The host as in the URL, without brackets (the TLS server name and the log label).
    public let host: String
    public let port: UInt16
    /// The address when `host` is an IP literal (never resolved).
    public let literal: SocketAddress?

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
        let text = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        literal = try? SocketAddress(parsing: text)
    }

    public init(address: SocketAddress) {
        host = address.host
        port = address.port
        literal = address
    }

    /// `host:port` (brackets around IPv6), as metric labels and log lines name the upstream.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
