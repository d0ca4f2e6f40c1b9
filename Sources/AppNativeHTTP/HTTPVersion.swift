/// An HTTP/1.x protocol version as received or to be sent (RFC 9112 §2.3).
///
/// The parsers only produce major version 1; a higher minor version (`HTTP/1.2`) is kept as
/// received and processed with HTTP/1.1 semantics, as RFC 9112 §2.3 asks.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version digit.
    public var major: Int
    /// The minor version digit.
    public var minor: Int

    /// - Parameters:
    ///   - major: the major version, 0...9 on the wire.
    ///   - minor: the minor version, 0...9 on the wire.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// `HTTP/1.0`.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// `HTTP/1.1`.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// Whether this version gets HTTP/1.1 semantics: persistent connections by default and a
    /// mandatory Host field (RFC 9112 §9.3, §3.2). True for `HTTP/1.1` and any higher 1.x.
    public var hasHTTP11Semantics: Bool { major > 1 || (major == 1 && minor >= 1) }

    /// The wire form, `HTTP/<major>.<minor>`.
    public var description: String { "HTTP/\(major).\(minor)" }
}

extension HTTPVersion {
    /// Whether a message of this version with `headers` keeps its connection open (RFC 9112
    /// §9.3): with HTTP/1.1 semantics unless `Connection` lists `close`; with HTTP/1.0 only when
    /// it lists `keep-alive` (and not `close`).
    public func keepsAlive(with headers: HTTPHeaders) -> Bool {
        if headers.containsToken("close", inField: "Connection") { return false }
        if hasHTTP11Semantics { return true }
        return headers.containsToken("keep-alive", inField: "Connection")
    }
}
