public import AppNativeCore
import AppNativeAuth
import AppNativeCrypto

/// A PKCE pair (RFC 7636) with the S256 method: the verifier stays in the signed state cookie,
/// the challenge goes to the authorize endpoint, and the token endpoint checks one against the
/// other, so a code taken from the redirect is useless without the browser's cookie.
public struct ProofKey: Sendable {
    /// 43 characters of base64url (32 random bytes): RFC 7636 §4.1 asks for 43–128 from the
    /// unreserved set and at least 256 bits of entropy.
    public let verifier: Secret<String>

    public init(verifier: Secret<String>) {
        self.verifier = verifier
    }

    /// A fresh verifier from OpenSSL's DRBG.
    public static func generate() -> ProofKey {
        ProofKey(verifier: Secret(Base64URL.encode(SecureRandom.bytes(count: 32))))
    }

    /// `BASE64URL(SHA256(ASCII(code_verifier)))` (RFC 7636 §4.2).
    public var challenge: String {
        Base64URL.encode(SHA256.hash(verifier.revealed))
    }

    public static let challengeMethod = "S256"

    /// Whether `text` is a verifier RFC 7636 §4.1 allows: 43–128 characters of
    /// `ALPHA / DIGIT / "-" / "." / "_" / "~"`.
    public static func isValidVerifier(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count) && text.utf8.allSatisfy(SignInText.isUnreserved)
    }
}
