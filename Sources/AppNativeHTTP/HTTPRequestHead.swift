/// The request line and header section of a request (RFC 9112 §3, §5).
public struct HTTPRequestHead: Sendable, Hashable {
    /// The method, case-sensitive (RFC 9110 §9.1).
    public var method: String
    /// The request target exactly as received: origin-form (`/path?query`), absolute-form
    /// (`http://host/path`) or asterisk-form (`*`) (RFC 9112 §3.2).
    public var target: String
    /// The version as received.
    public var version: HTTPVersion
    /// The header fields in received order.
    public var headers: HTTPHeaders

    /// - Parameters:
    ///   - method: a token.
    ///   - target: a request target without whitespace.
    ///   - version: the version to send or that was received.
    ///   - headers: the header fields in order.
    public init(method: String, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders()) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// Whether the client wants the connection kept open after this exchange (RFC 9112 §9.3):
    /// with HTTP/1.1 semantics unless Connection lists `close`; with HTTP/1.0 only when
    /// Connection lists `keep-alive` (and not `close`).
    public var isKeepAlive: Bool { version.keepsAlive(with: headers) }
}
