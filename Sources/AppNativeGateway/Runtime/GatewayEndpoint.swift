/// The gateway's own endpoints under `AUTH_PATH_PREFIX`, and the methods each answers.
enum GatewayEndpoint: String, CaseIterable, Sendable {
    case jwks = "jwks.json"
    case openAPI = "openapi.json"
    case me
    case session
    case logout
    /// Forward-auth: nginx `auth_request`, Traefik ForwardAuth, Caddy `forward_auth`.
    case verify
    /// Browser sign-in: start (`login?redirect=`), finish (`callback`), the signed-out page.
    case login
    case callback
    case signedOut = "signed-out"

    /// Methods answered (HEAD goes with GET); others get 405 with `Allow`.
    /// `verify` takes every method: forward-auth proxies pass the original request's method.
    var methods: [String] {
        switch self {
        case .jwks, .openAPI, .me, .login, .callback, .signedOut: ["GET"]
        case .session: ["GET", "POST"]
        case .logout: ["POST"]
        case .verify: ["GET", "POST", "PUT", "PATCH", "DELETE"]
        }
    }

    /// Whether the browser sign-in serves it (404 when sign-in is off).
    var isSignIn: Bool { self == .login || self == .callback || self == .signedOut }

    /// The `Allow` value when `method` is not answered, `nil` when it is.
    func disallowed(_ method: String) -> String? {
        let method = method == "HEAD" ? "GET" : method
        guard !methods.contains(method) else { return nil }
        return (methods.contains("GET") ? methods + ["HEAD"] : methods).joined(separator: ", ")
    }
}
