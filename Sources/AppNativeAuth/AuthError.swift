/// A failed token, cookie or key-set check.
///
/// `code` is the reason code of `contract/auth.md` §3 (logged, never sent to the client);
/// `reason` says which check failed in words, never which byte or which secret.
/// Equality compares `code` only, so tests match codes.
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable reason code. New codes can be added without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case malformed, algorithm, noKid = "no_kid", unknownKid = "unknown_kid"
            case keysUnavailable = "keys_unavailable", invalid, signature
            case missingClaim = "missing_claim", notYetValid = "not_yet_valid", expired, lifetime
            case issuer, audience, accessToken = "access_token", noScopeClaim = "no_scope_claim", scope
            case tenant, missingOID = "missing_oid", missingEmail = "missing_email"
            case notAuthenticated = "not_authenticated", configuration, deployment
            case conflictingCookies = "conflicting_cookies"
            case tokenKind = "token_kind", appOnly = "app_only", appNotAllowed = "app_not_allowed"
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Not a compact JWS of acceptable size, header not a JSON object, bad `kid` type, `crit` present.
        public static let malformed = Code(.malformed)
        /// Header `alg` is not the one algorithm this verifier accepts.
        public static let algorithm = Code(.algorithm)
        /// Header `kid` absent or empty.
        public static let noKid = Code(.noKid)
        /// No key with that `kid` in the key set, even after the allowed reload.
        public static let unknownKid = Code(.unknownKid)
        /// The key set is empty: the tenant's JWKS could not be loaded (answered 503).
        public static let keysUnavailable = Code(.keysUnavailable)
        /// Payload not a JSON object, or a claim of the wrong type.
        public static let invalid = Code(.invalid)
        /// The signature or MAC does not verify.
        public static let signature = Code(.signature)
        /// A required claim (`exp`, `iss`, `aud`, `sub`) is absent.
        public static let missingClaim = Code(.missingClaim)
        /// `iat` or `nbf` lies in the future beyond the leeway.
        public static let notYetValid = Code(.notYetValid)
        /// `exp` has passed (equality counts as expired).
        public static let expired = Code(.expired)
        /// `exp` lies further in the future than the policy's maximum lifetime.
        public static let lifetime = Code(.lifetime)
        /// `iss` is not an allowed issuer.
        public static let issuer = Code(.issuer)
        /// No `aud` value is an allowed audience.
        public static let audience = Code(.audience)
        /// ID-token mode received a token with a `scp` claim (an access token).
        public static let accessToken = Code(.accessToken)
        /// Access-token mode received a token without a usable `scp` claim.
        public static let noScopeClaim = Code(.noScopeClaim)
        /// A delegated access token holds none of the required scopes (answered 403).
        public static let scope = Code(.scope)
        /// `tid` is not the configured tenant.
        public static let tenant = Code(.tenant)
        /// `oid` absent or blank.
        public static let missingOID = Code(.missingOID)
        /// None of `email`, `preferred_username`, `upn` is a non-blank string.
        public static let missingEmail = Code(.missingEmail)
        /// The token's kind cannot be told without doubt (its `aud` names both the app and the API,
        /// `scp` beside `idtyp: "app"`, `ver` disagreeing with `iss`, an ID token with `idtyp: "app"`).
        public static let tokenKind = Code(.tokenKind)
        /// An app-only (client-credentials) token, and service callers are not enabled
        /// (`ENTRA_APP_CLIENTS` unset; answered 403).
        public static let appOnly = Code(.appOnly)
        /// An app-only token of a client application not in `ENTRA_APP_CLIENTS`, or naming none
        /// (answered 403).
        public static let appNotAllowed = Code(.appNotAllowed)
        /// No credential was presented.
        public static let notAuthenticated = Code(.notAuthenticated)
        /// A session cookie bound to another deployment, or one that names none (the reference's)
        /// while reference cookies are not accepted.
        public static let deployment = Code(.deployment)
        /// Two session cookies of the name verified and named different users
        /// (`SessionCookieAgreement`): no session.
        public static let conflictingCookies = Code(.conflictingCookies)
        /// Invalid verifier or cookie configuration (construction time only).
        public static let configuration = Code(.configuration)

        /// The reason code as logged (`unknown_kid`, `expired`, …).
        public var description: String { value.rawValue }
    }

    public let code: Code
    /// Which check failed, in words. Never contains token, cookie or key bytes.
    public let reason: String
    public let file: String
    public let line: Int
    /// For a `configuration` error: the setting (environment variable) at fault, so a caller
    /// reports it by name without reading `reason`.
    public let setting: String?

    public init(_ code: Code, _ reason: String, setting: String? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.setting = setting
        self.file = file
        self.line = line
    }

    public static func == (lhs: AuthError, rhs: AuthError) -> Bool { lhs.code == rhs.code }

    public var description: String { "\(code): \(reason)" }

    /// The HTTP status of `contract/auth.md` §7 for a failed bearer token.
    public var bearerStatus: Int {
        switch code {
        case .keysUnavailable: 503
        case .scope, .appOnly, .appNotAllowed: 403
        default: 401
        }
    }
}
