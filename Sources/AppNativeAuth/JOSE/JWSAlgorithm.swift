/// The JWS algorithms this library implements (RFC 7518 §3). A verifier pins exactly one.
public enum JWSAlgorithm: String, Sendable, Hashable {
    /// RSASSA-PKCS1-v1_5 with SHA-256: Entra ID tokens.
    case rs256 = "RS256"
    /// HMAC with SHA-256: session cookies.
    case hs256 = "HS256"
    /// ECDSA P-256 with SHA-256, `r||s` signatures: identity assertions, APNs provider tokens.
    case es256 = "ES256"
}
