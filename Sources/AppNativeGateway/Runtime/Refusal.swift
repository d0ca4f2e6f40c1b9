import AppNativeAuth
import AppNativeHTTP

/// A request the gateway answers with an error instead of serving it. The request path decides
/// on these values (routing, the Origin rule, authorization, the endpoints); `GatewayHandler`
/// renders them in one place: the JSON error (`{"detail": …}`) with its fields, and, for a
/// refusal with a `reason`, the count in `auth.outcomes{result="rejected",reason}` and the
/// access log's `auth.reason`.
struct Refusal: Error, Sendable, Equatable {
    let status: Int
    /// The contract's fixed text; never the reason, never request data.
    let detail: String
    var headers: [Field] = []
    /// The metric label and log reason; `nil` for answers that are no decision about a caller
    /// (an unknown path, a wrong method).
    let reason: String?

    static let badTarget = Refusal(status: 400, detail: "Bad Request", reason: "target")
    static let notFound = Refusal(status: 404, detail: "Not Found", reason: nil)
    static let originNotAllowed = Refusal(status: 403, detail: "Origin not allowed", reason: "origin")
    static let sessionsNotConfigured = Refusal(status: 404, detail: "Sessions are not configured", reason: nil)
    static let applicationSession = Refusal(status: 403, detail: "Application tokens get no session", reason: "app_session")
    static let authorizationUnavailable = Refusal(
        status: 503, detail: "Authorization is temporarily unavailable", headers: [.init(name: "Retry-After", value: "5")],
        reason: "authorize_unavailable")

    static func methodNotAllowed(allowed: String) -> Refusal {
        Refusal(status: 405, detail: "Method Not Allowed", headers: [.init(name: "Allow", value: allowed)], reason: nil)
    }

    /// An access-policy or hook refusal (403 `Not allowed`) counted under `reason`.
    static func notAllowed(reason: String) -> Refusal {
        Refusal(AuthRejection.notAllowed, reason: reason)
    }

    /// A `groups` rule met a caller whose groups the directory cannot tell now.
    static func groupsUnavailable(reason: String, retryAfterSeconds seconds: Int) -> Refusal {
        Refusal(
            status: 503, detail: "Group membership is temporarily unavailable",
            headers: [.init(name: "Retry-After", value: "\(max(1, seconds))")], reason: reason)
    }

    /// Authentication's answer, with its reason.
    init(_ rejection: AuthRejection, reason: String? = nil) {
        self.init(
            status: rejection.status, detail: rejection.detail, headers: rejection.headers.map { Field(name: $0.name, value: $0.value) },
            reason: reason ?? rejection.reason)
    }

    init(status: Int, detail: String, headers: [Field] = [], reason: String?) {
        self.status = status
        self.detail = detail
        self.headers = headers
        self.reason = reason
    }

    struct Field: Sendable, Equatable {
        let name: String
        let value: String
    }

    var fields: HTTPHeaders {
        var fields = HTTPHeaders()
        for field in headers { fields.add(name: field.name, value: field.value) }
        return fields
    }
}
