/// A complete response that a server sends itself: status, fields and the whole body.
///
/// `headers` carries `Content-Type` and whatever the answer adds (`Allow`, `WWW-Authenticate`,
/// `Retry-After`), never framing: the server sets `Content-Length` from `body`. It is an `Error`
/// so that a check refusing a request can throw the answer that refuses it.
public struct CompleteResponse: Error, Sendable, Hashable {
    /// The status code (RFC 9110 §15).
    public var status: Int
    /// The response fields.
    public var headers: HTTPHeaders
    /// The body; empty for a status without content (204).
    public var body: [UInt8]

    /// A response.
    ///
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: the response fields, without framing.
    ///   - body: the body bytes.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
