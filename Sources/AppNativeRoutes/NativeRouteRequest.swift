public import AppNativeHTTP

/// One request for ``NativeRoutes/respond(to:)``: its head and its body as an asynchronous
/// sequence of byte chunks, in whatever pieces the server reads them.
///
/// `Body` is any `AsyncSequence` of byte collections: a framework's own body stream mapped to
/// its bytes (`ByteBuffer.readableBytesView`), `[UInt8]` chunks, or an empty sequence for a
/// request without a body. It is iterated at most once, only after authentication.
public struct NativeRouteRequest<Body: AsyncSequence> where Body.Element: Collection<UInt8> {
    /// Method, target (path and query, as received), version and headers.
    public var head: HTTPRequestHead
    /// The body, not yet read.
    public var body: Body
    /// A field name given to ``init(method:target:fields:body:)`` was not a token: the request is
    /// answered 400 without running anything.
    let hasInvalidFieldName: Bool

    /// A request whose head the server already holds as an `HTTPRequestHead`.
    ///
    /// - Parameters:
    ///   - head: the request head.
    ///   - body: the body chunks.
    public init(head: HTTPRequestHead, body: Body) {
        self.head = head
        self.body = body
        hasInvalidFieldName = false
    }

    /// A request from a framework's parts.
    ///
    /// - Parameters:
    ///   - method: the method (`GET`, `POST`, …).
    ///   - target: the request target as received: path and optional `?query`.
    ///   - fields: the header fields in order, duplicates kept. A name that is not a token
    ///     (RFC 9110 §5.6.2) makes the answer 400; values are stored as `HTTPHeaders` stores them
    ///     (controls become spaces).
    ///   - body: the body chunks.
    public init(method: String, target: String, fields: some Sequence<(name: String, value: String)>, body: Body) {
        var headers = HTTPHeaders()
        var hasInvalidFieldName = false
        for field in fields {
            guard HTTPHeaders.isValidFieldName(field.name) else {
                hasInvalidFieldName = true
                continue
            }
            headers.add(name: field.name, value: field.value)
        }
        self.head = HTTPRequestHead(method: method, target: target, headers: headers)
        self.body = body
        self.hasInvalidFieldName = hasInvalidFieldName
    }
}

extension NativeRouteRequest: Sendable where Body: Sendable {}
