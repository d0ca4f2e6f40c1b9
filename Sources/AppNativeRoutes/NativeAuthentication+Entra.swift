public import AppNativeAuth
import AppNativeHTTP

extension NativeAuthentication where User == VerifiedIdentity {
    /// The project's own credential resolution (contract/auth.md §1–§7: an Entra bearer token first, then
    /// the session cookie, then 401), with the verified identity as ``NativeRequestContext/user``.
    ///
    /// The refusals are the authenticator's exact status, headers and `detail`. A session cookie
    /// is only read here, never issued or renewed: issuing one is the host's choice.
    ///
    /// - Parameter authenticator: the configured authenticator (JWKS cache, policy, cookie codec).
    public static func requestAuthenticator(_ authenticator: RequestAuthenticator) -> Self {
        .hook { head in
            let outcome = authenticator.authenticateImmediately(headers: head.headers)
            switch outcome {
            case .authenticated(let identity, _):
                return .authenticated(identity)
            case .rejected(let rejection):
                return .rejected(NativeAuthRejection(rejection))
            case .mustWait(let token):
                switch await authenticator.authenticate(token: token) {
                case .authenticated(let identity, _): return .authenticated(identity)
                case .rejected(let rejection): return .rejected(NativeAuthRejection(rejection))
                }
            }
        }
    }
}

extension NativeAuthRejection {
    /// The same answer as the gateway's for this refusal (the reason code stays in the log).
    init(_ rejection: AuthRejection) {
        var headers = HTTPHeaders()
        for field in rejection.headers { headers.add(name: field.name, value: field.value) }
        self.init(status: rejection.status, detail: rejection.detail, headers: headers)
    }
}
