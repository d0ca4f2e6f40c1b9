public import AppNativeHTTP

// Unsafe: the header value buffers come from HTTPHeaders' `withFirstValueBytes`/`forEachValueBytes`,
// valid inside those closures only; the token range is one found inside that value, and every
// verdict or string made from it is a copy.

/// What the gateway answers when a request does not authenticate (contract/auth.md §7): exact status,
/// headers and body. The reason code is for logs only.
public struct AuthRejection: Sendable, Equatable {
    public let status: Int
    public let headers: [HeaderField]
    /// The contract's fixed `detail` text; never the reason.
    public let detail: String
    public let reason: String

    public struct HeaderField: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    static func invalidToken(_ error: AuthError) -> AuthRejection {
        switch error.code {
        case .keysUnavailable:
            AuthRejection(status: 503, headers: [.init(name: "Retry-After", value: "30")],
                          detail: "Sign-in is temporarily unavailable", reason: error.code.description)
        case .scope:
            AuthRejection(status: 403, headers: [], detail: "Missing scope", reason: error.code.description)
        case .appOnly, .appNotAllowed:
            // A genuine token of an application this gateway does not admit: 403 (a new token
            // would not help), never the 401 that makes a client sign in again.
            AuthRejection(status: 403, headers: [], detail: "Application not allowed", reason: error.code.description)
        default:
            AuthRejection(status: 401, headers: [.init(name: "WWW-Authenticate", value: "Bearer error=\"invalid_token\"")],
                          detail: "Invalid token", reason: error.code.description)
        }
    }

    /// No credential (or an invalid cookie): 401 with `WWW-Authenticate: Bearer`.
    public static var notAuthenticatedPublic: AuthRejection { notAuthenticated }

    static let notAuthenticated = AuthRejection(
        status: 401, headers: [.init(name: "WWW-Authenticate", value: "Bearer")], detail: "Not authenticated",
        reason: AuthError.Code.notAuthenticated.description
    )

    /// A session cookie that did not verify: answered exactly as no cookie (contract/auth.md §8.4),
    /// with the cookie's reason code (`expired`, `deployment`, …) for the log.
    static func cookieRefused(_ error: AuthError) -> AuthRejection {
        AuthRejection(status: notAuthenticated.status, headers: notAuthenticated.headers, detail: notAuthenticated.detail,
                      reason: error.code.description)
    }

    /// The authorization hook or policy refused a verified user.
    public static let notAllowed = AuthRejection(status: 403, headers: [], detail: "Not allowed", reason: "not_allowed")
}

/// The outcome of credential resolution for one request.
public enum AuthenticationOutcome: Sendable {
    /// Verified. `refreshesCookie` is true for a user's bearer token (a fresh session cookie goes on
    /// the response), false for the cookie path (cookie-only requests are never renewed) and for an
    /// application's app-only token (never exchanged for a session).
    case authenticated(VerifiedIdentity, refreshesCookie: Bool)
    /// The token's key is being fetched: finish with `authenticate(token:)`.
    case mustWait(token: String)
    case rejected(AuthRejection)
}

/// How a `.mustWait` resolution ends (`RequestAuthenticator.authenticate(token:)`): the key is
/// in hand or refused, so there is nothing left to wait for.
public enum AuthenticationVerdict: Sendable {
    /// Verified; `refreshesCookie` as in ``AuthenticationOutcome/authenticated(_:refreshesCookie:)``.
    case authenticated(VerifiedIdentity, refreshesCookie: Bool)
    case rejected(AuthRejection)
}

/// Credential resolution of contract/auth.md §1: a bearer token first (a valid cookie never rescues an
/// invalid token), then the session cookie, then 401 — never a redirect.
public final class RequestAuthenticator: Sendable {
    public let verifier: EntraTokenVerifier
    public let cookies: SessionCookieCodec?

    public init(verifier: EntraTokenVerifier, cookies: SessionCookieCodec?) {
        self.verifier = verifier
        self.cookies = cookies
    }

    /// Resolves without waiting (event-loop fast path).
    public func authenticateImmediately(authorization: String?, cookieHeaders: [String]) -> AuthenticationOutcome {
        if let token = BearerCredential.token(fromAuthorization: authorization) { return verifyImmediately(token) }
        return cookieOutcome(cookieHeaders)
    }

    /// Resolves a request's fields without waiting: the same rules, with `Authorization` and
    /// `Cookie` read in place (a `String` is built only for a credential not verified before, or
    /// a field with obs-text) and `Cookie` only read without a token.
    public func authenticateImmediately(headers: HTTPHeaders) -> AuthenticationOutcome {
        // `.some(nil)`: the ASCII field holds no bearer token; `nil`: not decided in place.
        var inPlace: AuthenticationOutcome?? = nil
        let hasAuthorization = unsafe headers.withFirstValueBytes("Authorization") { value, isASCII in
            guard isASCII, let found = unsafe BearerCredential.asciiTokenRange(value, knownASCII: true) else { return }
            guard let range = found else {
                inPlace = .some(nil)
                return
            }
            let token = unsafe UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: value[range]))
            inPlace = unsafe .some(outcome(verifier.verifyImmediately(tokenBytes: token)) {
                unsafe String(decoding: token, as: UTF8.self)
            })
        }
        switch inPlace {
        case .some(let outcome?): return outcome
        case .some(nil): return cookieOutcome(headers)
        case nil:
            if hasAuthorization, let token = BearerCredential.token(fromAuthorization: headers.first("Authorization")) {
                return verifyImmediately(token)
            }
            return cookieOutcome(headers)
        }
    }

    /// The cookie path on a request's fields: each `Cookie` field read in place, unless one holds
    /// obs-text, which only the string path reads.
    private func cookieOutcome(_ headers: HTTPHeaders) -> AuthenticationOutcome {
        guard let cookies else { return .rejected(.notAuthenticated) }
        // Every field is read: two valid cookies of different users are no session
        // (`SessionCookieAgreement`), whichever fields they sit in.
        var agreement = SessionCookieAgreement()
        var needsStrings = false
        unsafe headers.forEachValueBytes("Cookie") { field, isASCII in
            guard isASCII else {
                needsStrings = true
                return false
            }
            unsafe cookies.readSession(fromCookieField: field, into: &agreement)
            return !agreement.isConflicting
        }
        if needsStrings { return cookieOutcome(headers.values("Cookie")) }
        return Self.outcome(agreement.verdict)
    }

    /// The cookie path's outcome: no cookie and a refused one are both 401 "Not authenticated".
    private static func outcome(_ verdict: Result<VerifiedIdentity, AuthError>?) -> AuthenticationOutcome {
        switch verdict {
        case .success(let identity)?: .authenticated(identity, refreshesCookie: false)
        case .failure(let error)?: .rejected(.cookieRefused(error))
        case nil: .rejected(.notAuthenticated)
        }
    }

    private func verifyImmediately(_ token: String) -> AuthenticationOutcome {
        outcome(verifier.verifyImmediately(token)) { token }
    }

    /// The outcome of a verification; `token` is only asked for when the caller must wait.
    private func outcome(
        _ verification: EntraTokenVerifier.ImmediateVerification, token: () -> String
    ) -> AuthenticationOutcome {
        switch verification {
        case .verified(let identity): return .authenticated(identity, refreshesCookie: issuesCookie(to: identity))
        case .failed(let error): return .rejected(.invalidToken(error))
        case .mustWait: return .mustWait(token: token())
        }
    }

    private func cookieOutcome(_ cookieHeaders: [String]) -> AuthenticationOutcome {
        guard let cookies else { return .rejected(.notAuthenticated) }
        return Self.outcome(cookies.verdict(fromCookieHeaders: cookieHeaders))
    }

    /// Whether a token's identity gets a session cookie: sessions are configured and the caller is
    /// a user (an application's token is never exchanged for a session).
    public func issuesCookie(to identity: VerifiedIdentity) -> Bool {
        cookies != nil && identity.user.callerType == .user
    }

    /// Finishes a `.mustWait` resolution.
    public func authenticate(token: String) async -> AuthenticationVerdict {
        do {
            let identity = try await verifier.verify(token)
            return .authenticated(identity, refreshesCookie: issuesCookie(to: identity))
        } catch {
            return .rejected(.invalidToken(error))
        }
    }
}
