import AppNativeCore
/// What a JWT verification enforces. Every field is a check that runs; there is no call that
/// skips the policy (docs/style.md §4). The values are explicit so a reviewer reads them in one place.
public struct JWTPolicy: Sendable {
    /// The one algorithm accepted; the header's `alg` must equal it exactly (RFC 8725 §3.1).
    public var algorithm: JWSAlgorithm
    /// Allowed `iss` values (exact, case-sensitive); `nil` when the token type has no issuer (cookies).
    public var issuers: [String]?
    /// Allowed audiences; at least one `aud` value must match exactly. `nil`: `aud` not checked.
    public var audiences: [String]?
    /// Claims that must be present besides `exp` (always required).
    public var requiredClaims: [String]
    /// Clock skew tolerated on `exp`, `nbf` and `iat`.
    public var leeway: Duration
    /// Upper bound on `exp - now`: refuses tokens that claim to live for years.
    public var maxLifetime: Duration?
    /// Tokens longer than this are refused before any decoding (contract/auth.md §3 step 1).
    public var maxTokenBytes: Int
    /// Whether the header must carry a non-empty `kid` (keys are chosen by exact `kid` only).
    public var requiresKeyID: Bool

    public init(
        algorithm: JWSAlgorithm,
        issuers: [String]?,
        audiences: [String]?,
        requiredClaims: [String] = [],
        leeway: Duration,
        maxLifetime: Duration?,
        maxTokenBytes: Int = 16384,
        requiresKeyID: Bool
    ) {
        self.algorithm = algorithm
        self.issuers = issuers
        self.audiences = audiences
        self.requiredClaims = requiredClaims
        self.leeway = leeway
        self.maxLifetime = maxLifetime
        self.maxTokenBytes = maxTokenBytes
        self.requiresKeyID = requiresKeyID
    }

    /// Longest `kid` accepted; real key ids are short, a 10,000-character one is an attack.
    static let maxKeyIDBytes = 256
}
