/// The status line and header section of a response (RFC 9112 §4, §5).
public struct HTTPResponseHead: Sendable, Hashable {
    /// The three-digit status code (RFC 9110 §15).
    public var status: Int
    /// The reason phrase; may be empty. Clients ignore it (RFC 9112 §4).
    public var reason: String
    /// The version as received.
    public var version: HTTPVersion
    /// The header fields in received order.
    public var headers: HTTPHeaders

    /// - Parameters:
    ///   - status: 100...999.
    ///   - reason: the reason phrase, possibly empty.
    ///   - version: the version to send or that was received.
    ///   - headers: the header fields in order.
    public init(status: Int, reason: String = "", version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.reason = reason
        self.version = version
        self.headers = headers
    }

    /// Whether the server keeps the connection open after this response (RFC 9112 §9.3). A
    /// body framed `untilClose` ends the connection regardless.
    public var isKeepAlive: Bool { version.keepsAlive(with: headers) }
}
