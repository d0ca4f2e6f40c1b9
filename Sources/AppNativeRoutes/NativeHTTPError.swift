public import AppNativeHTTP
public import AppNativeJSON

/// An HTTP error a route callback throws on purpose; it reaches the app unchanged as
/// `{"detail": …}` with its status and headers (contract/routes.md §0, "host-raised HTTP errors pass
/// through", FastAPI's `HTTPException`).
///
/// Any other error a callback throws is answered 500 with a generic body; its description goes
/// only to the log.
public struct NativeHTTPError: Error, Sendable, Hashable {
    public var status: Int
    /// The `detail` member: a string or any JSON value.
    public var detail: JSONValue
    /// Extra response headers; `Content-Type` is set by the routes.
    public var headers: HTTPHeaders

    /// An error answered `{"detail": detail}`.
    ///
    /// - Parameters:
    ///   - status: a 4xx or 5xx status.
    ///   - detail: the `detail` member.
    ///   - headers: extra response headers.
    public init(status: Int, detail: JSONValue, headers: HTTPHeaders = HTTPHeaders()) {
        precondition((400..<600).contains(status), "NativeHTTPError is a 4xx or 5xx")
        self.status = status
        self.detail = detail
        self.headers = headers
    }

    /// An error answered `{"detail": "<detail>"}`.
    public init(status: Int, detail: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.init(status: status, detail: .string(detail), headers: headers)
    }

    /// 403 `{"detail":"Forbidden"}`: the user may not act on an id the app sent (contract/routes.md §4).
    public static let forbidden = NativeHTTPError(status: 403, detail: "Forbidden")
    /// 404 `{"detail":"Not Found"}`.
    public static let notFound = NativeHTTPError(status: 404, detail: "Not Found")
}
