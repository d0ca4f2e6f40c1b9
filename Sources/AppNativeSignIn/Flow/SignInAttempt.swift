public import AppNativeCore
import AppNativeAuth
import AppNativeCrypto

/// One sign-in attempt: what the callback must find again to finish it. It lives only in the
/// signed state cookie (`SignInStateCookie`), never on the server, so any instance can finish an
/// attempt another started and several tabs can sign in at once.
public struct SignInAttempt: Sendable {
    /// The `state` parameter (RFC 6749 §10.12): 32 random bytes, base64url.
    public let state: String
    /// The `nonce` the ID token must carry back (OpenID Connect Core §3.1.2.1).
    public let nonce: Secret<String>
    public let proofKey: ProofKey
    public let returnPath: ReturnPath
    /// Wall-clock second after which the attempt is refused.
    public let expiresAt: Int64

    /// The longest an attempt may stay open.
    public static let maxLifetime: Duration = .seconds(600)

    public init(state: String, nonce: Secret<String>, proofKey: ProofKey, returnPath: ReturnPath, expiresAt: Int64) {
        self.state = state
        self.nonce = nonce
        self.proofKey = proofKey
        self.returnPath = returnPath
        self.expiresAt = expiresAt
    }

    /// A fresh attempt: new state, nonce and verifier, expiring `lifetime` (at most 10 min) from `now`.
    public static func start(returnPath: ReturnPath, now: Double, lifetime: Duration = maxLifetime) -> SignInAttempt {
        let seconds = min(max(lifetime.components.seconds, 1), maxLifetime.components.seconds)
        let wall = now.isFinite ? Int64(max(0, min(now, 1e15))) : 0
        return SignInAttempt(
            state: Base64URL.encode(SecureRandom.bytes(count: 32)),
            nonce: Secret(Base64URL.encode(SecureRandom.bytes(count: 32))),
            proofKey: .generate(),
            returnPath: returnPath,
            expiresAt: wall + seconds
        )
    }

    /// Whether `text` has the shape of a state this gateway issues (43 base64url characters).
    public static func isWellFormedState(_ text: String) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy(SignInText.isUnreserved)
    }
}
