public import AppNativeCrypto

// Unsafe: the signature and signing input are buffers borrowed for the verification call only.

/// A verification key bound to the one algorithm it may be used with (RFC 8725 §3.1:
/// the key, not the token header, decides the algorithm).
public enum JWTVerificationKey: Sendable {
    case rsa(RSAPublicKey)
    case hmac(HMACSHA256)
    case p256(P256PublicKey)

    /// The algorithm this key verifies.
    public var algorithm: JWSAlgorithm {
        switch self {
        case .rsa: .rs256
        case .hmac: .hs256
        case .p256: .es256
        }
    }

    func isValidSignature(_ signature: [UInt8], signingInput: UnsafeRawBufferPointer) -> Bool {
        unsafe signature.withUnsafeBytes { unsafe isValidSignature($0, signingInput: signingInput) }
    }

    func isValidSignature(_ signature: UnsafeRawBufferPointer, signingInput: UnsafeRawBufferPointer) -> Bool {
        switch self {
        case .rsa(let key):
            unsafe key.isValidPKCS1v15SHA256Signature(signature, for: signingInput)
        case .hmac(let key):
            unsafe key.isValidAuthenticationCode(signature, for: signingInput)
        case .p256(let key):
            unsafe key.isValidSignature(rawRS: signature, for: signingInput)
        }
    }
}

/// A signing key for the tokens this library issues.
public enum JWTSigningKey: Sendable {
    case hmac(HMACSHA256)
    case p256(P256SigningKey, keyID: String)
    /// RS256; `keyID` nil sends no `kid` (a client assertion names its certificate with `x5t` instead).
    case rsa(RSAPrivateKey, keyID: String?)

    public var algorithm: JWSAlgorithm {
        switch self {
        case .hmac: .hs256
        case .p256: .es256
        case .rsa: .rs256
        }
    }

    var keyID: String? {
        switch self {
        case .hmac: nil
        case .p256(_, let keyID): keyID
        case .rsa(_, let keyID): keyID
        }
    }

    func signature(for signingInput: [UInt8]) throws(CryptoError) -> [UInt8] {
        switch self {
        case .hmac(let key): key.authenticationCode(for: signingInput)
        case .p256(let key, _): try key.signature(for: signingInput)
        case .rsa(let key, _): try key.pkcs1v15SHA256Signature(for: signingInput)
        }
    }
}
