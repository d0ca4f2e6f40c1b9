/// A complete HTTP response. Any status is a response, 3xx, 4xx and 5xx included: deciding
/// whether a status is a failure is the caller's policy.
public struct HTTPResponse: Sendable {
    /// The status code of the final response (RFC 9110 §15).
    public var status: Int
    /// The final response's header fields in received order; interim (1xx) and redirect
    /// responses' fields are not included.
    public var headers: [HTTPHeaderField]
    /// The content, at most `HTTPRequest.maxResponseBytes` long. Never decompressed: no
    /// `Accept-Encoding` is sent, so nothing can expand past the cap.
    public var body: [UInt8]
    /// The major protocol version the exchange used: 1 for HTTP/1.x, 2 for HTTP/2.
    public var httpVersion: Int
    /// True when the body was cut at `maxResponseBytes` (only with `truncatesLargeResponses`).
    public var isBodyTruncated: Bool

    /// Creates a response; public so that fakes of `HTTPFetching` can answer.
    public init(
        status: Int,
        headers: [HTTPHeaderField] = [],
        body: [UInt8] = [],
        httpVersion: Int = 1,
        isBodyTruncated: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.isBodyTruncated = isBodyTruncated
    }
}
