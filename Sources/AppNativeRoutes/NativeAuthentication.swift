public import AppNativeHTTP
public import AppNativeJSON

/// How the native routes authenticate a request: a hook, or an explicit insecure opt-out.
///
/// contract/routes.md requires every route to sit behind an authentication hook that runs before the
/// body is read or validated; a ``NativeRoutesHandler`` cannot be built without choosing one of
/// these values, and the only way to skip authentication is to spell
/// ``insecureNoAuthentication``.
public struct NativeAuthentication<User: Sendable>: Sendable {
    enum Mode: Sendable {
        case hook(@Sendable (HTTPRequestHead) async -> NativeAuthOutcome<User>)
        case insecure
    }

    let mode: Mode

    /// Authenticates each request with `authenticate`, called off the event loop before the
    /// request body is read.
    ///
    /// - Parameter authenticate: resolves the request head to a user, or to the answer that
    ///   refuses it (401, 403, 503 with their headers).
    public static func hook(_ authenticate: @escaping @Sendable (HTTPRequestHead) async -> NativeAuthOutcome<User>) -> Self {
        Self(mode: .hook(authenticate))
    }

    /// No authentication at all: every request reaches its callback with `user == nil`.
    /// For local development and tests only; never for a backend reachable by anyone else.
    public static var insecureNoAuthentication: Self { Self(mode: .insecure) }
}

/// What an authentication hook decided for one request.
public enum NativeAuthOutcome<User: Sendable>: Sendable {
    /// The request may proceed; `user` becomes ``NativeRequestContext/user``.
    case authenticated(User)
    /// The request is answered with this refusal; its body is never read.
    case rejected(NativeAuthRejection)
}

/// The answer to a request the authentication hook refused: status, headers and a JSON body.
public struct NativeAuthRejection: Sendable, Hashable {
    public var status: Int
    /// Extra response headers (`WWW-Authenticate`, `Retry-After`); `Content-Type` is set by the routes.
    public var headers: HTTPHeaders
    /// The JSON body sent with `status`.
    public var body: JSONValue

    /// A refusal with any JSON body.
    ///
    /// - Parameters:
    ///   - status: a 4xx or 5xx status.
    ///   - headers: extra response headers.
    ///   - body: the JSON body.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: JSONValue) {
        precondition((400..<600).contains(status), "an authentication refusal is a 4xx or 5xx")
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A refusal with the contract's error shape, `{"detail": detail}` (contract/routes.md §0).
    public init(status: Int, detail: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.init(status: status, headers: headers, body: .object(JSONObject([("detail", .string(detail))])))
    }

    /// 401 `{"detail":"Not authenticated"}` with `WWW-Authenticate: Bearer` (contract/auth.md §1).
    public static let notAuthenticated = NativeAuthRejection(
        status: 401, detail: "Not authenticated", headers: ["WWW-Authenticate": "Bearer"])

    /// 403 `{"detail":"Not allowed"}`: a verified user the host does not admit.
    public static let notAllowed = NativeAuthRejection(status: 403, detail: "Not allowed")
}
