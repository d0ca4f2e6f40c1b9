public import AppNativeHTTP

/// The answer of ``NativeRoutes/respond(to:)``: a complete response for the server to send.
///
/// `headers` carries `Content-Type` (and whatever a refusal adds: `Allow`, `WWW-Authenticate`,
/// `Retry-After`, a callback's own), never framing: the server sets `Content-Length` from `body`.
public struct NativeRouteResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The response fields.
    public var headers: HTTPHeaders
    /// The body: JSON, or empty (204).
    public var body: [UInt8]

    /// A response (public so hosts can unit-test their adapters).
    ///
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: the response fields.
    ///   - body: the body bytes.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    init(_ answer: NativeAnswer) {
        self.init(status: answer.status, headers: answer.headers, body: answer.body)
    }
}
