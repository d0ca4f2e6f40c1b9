// Unsafe (OpenSSL EVP): keys and contexts are owned by the handle classes in OpenSSL/; inputs are
// buffers borrowed for the call with their lengths, and outputs are written into buffers allocated
// with the size OpenSSL reports or the algorithm fixes.

/// An RSA public key for verifying RSASSA-PKCS1-v1_5 SHA-256 signatures (JWS RS256,
/// RFC 7518 §3.3; RFC 8017 §8.2.2).
///
/// Every initialiser applies `RSAKeyPolicy` (2048 to 8192 bits, exponent 65537) and OpenSSL's
/// SP 800-56B public key validation, so a key that exists is one the gateway is willing to
/// trust. That validation includes a Miller-Rabin compositeness test on random bases and costs a
/// few milliseconds per key: build a key once per JWKS refresh and keep it, never per request. Its
/// verdict is kept per modulus (`RSAModulusVerdicts`), so the same key bytes are always accepted
/// or always refused.
///
/// Verification is OpenSSL's `EVP_PKEY_verify` through the providers OpenSSL is configured with
/// (the FIPS provider included), on prepared contexts reused across calls (`SignatureContextPool`):
/// no cryptographic arithmetic is written here.
///
/// One instance may be shared by any number of threads: the OpenSSL key is immutable and each
/// verification runs on state of its own.
public final class RSAPublicKey: Sendable {
    let key: EVPPKey
    private let verifier: SignatureContextPool
    /// The modulus size in bits.
    public let bitCount: Int
    /// The modulus n as minimal big-endian bytes (the JWK `n` member before base64url, RFC 7518 §6.3.1.1).
    public let modulus: [UInt8]
    /// The public exponent e as minimal big-endian bytes (the JWK `e` member, RFC 7518 §6.3.1.2).
    public let exponent: [UInt8]
    /// The signature length in bytes: exactly the modulus length (RFC 8017 §8.2.2 step 1).
    public let signatureByteCount: Int

    /// A key from its components, as found in a JWK (RFC 7518 §6.3.1).
    /// - Parameters:
    ///   - modulus: n, big-endian; leading zero bytes are allowed and ignored.
    ///   - exponent: e, big-endian; leading zero bytes are allowed and ignored.
    /// - Throws: `.weakKey` below 2048 bits; `.unsupportedKey` for an exponent other than 65537
    ///   or above 8192 bits; `.invalidKey` for an empty or even modulus or one OpenSSL rejects.
    public convenience init(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        let modulus = Array(modulus.drop { $0 == 0 })
        let exponent = Array(exponent.drop { $0 == 0 })
        // Policy first, so a weak key never reaches OpenSSL's (costlier) validation.
        try RSAKeyPolicy.check(modulus: modulus, exponent: exponent)
        let der = DER.rsaSubjectPublicKeyInfo(modulus: modulus, exponent: exponent)
        guard let key = unsafe der.withUnsafeBytes({ unsafe EVPPKey.decodeSubjectPublicKeyInfo($0) }) else {
            throw CryptoError(.invalidKey, "OpenSSL rejected the RSA key components")
        }
        try self.init(validating: key)
    }

    /// A key from a DER SubjectPublicKeyInfo with algorithm rsaEncryption (RFC 5280 §4.1.2.7,
    /// RFC 3279 §2.3.1).
    /// - Throws: `.invalidKey` if it does not parse or bytes follow it; `.unsupportedKey` for a
    ///   non-RSA or RSA-PSS key; otherwise as `init(modulus:exponent:)`.
    public convenience init(spkiDER: [UInt8]) throws(CryptoError) {
        guard let key = unsafe spkiDER.withUnsafeBytes({ unsafe EVPPKey.decodeSubjectPublicKeyInfo($0) }) else {
            throw CryptoError(.invalidKey, "not a DER SubjectPublicKeyInfo")
        }
        try self.init(validating: key)
    }

    /// A key from PEM text holding one `PUBLIC KEY` block (RFC 7468 §13); surrounding
    /// whitespace is ignored.
    /// - Throws: `.invalidPEM` for malformed PEM, `.unsupportedKey` for another block type;
    ///   otherwise as `init(spkiDER:)`.
    public convenience init(pem: String) throws(CryptoError) {
        let block = try PEMDocument.decodeBlock(pem, acceptedLabels: ["PUBLIC KEY"])
        guard let key = unsafe block.der.withUnsafeBytes({ unsafe EVPPKey.decodeSubjectPublicKeyInfo($0) }) else {
            throw CryptoError(.invalidKey, "PUBLIC KEY block is not a DER SubjectPublicKeyInfo")
        }
        try self.init(validating: key)
    }

    init(validating key: EVPPKey) throws(CryptoError) {
        guard key.isA("RSA") else {
            throw CryptoError(.unsupportedKey, "not an rsaEncryption key")
        }
        guard let modulus = key.rsaModulus?.bigEndianBytes, let exponent = key.rsaPublicExponent?.bigEndianBytes
        else {
            throw CryptoError(.invalidKey, "RSA key has no modulus or exponent")
        }
        try RSAKeyPolicy.check(modulus: modulus, exponent: exponent)
        // The same modulus always gets the same verdict (see `RSAModulusVerdicts`).
        guard RSAModulusVerdicts.isValid(key, modulus: modulus) else {
            throw CryptoError(.invalidKey, "RSA public key failed OpenSSL validation")
        }
        verifier = SignatureContextPool(key: key, scheme: .rsaPKCS1v15SHA256)
        self.key = key
        self.modulus = modulus
        self.exponent = exponent
        bitCount = modulus.count * 8 - modulus[0].leadingZeroBitCount
        signatureByteCount = modulus.count
    }

    /// The key as DER SubjectPublicKeyInfo.
    public var spkiDER: [UInt8] { key.subjectPublicKeyInfoDER }

    /// Whether `signature` is a valid RSASSA-PKCS1-v1_5 SHA-256 signature of `message`
    /// (RFC 8017 §8.2.2). The signature must be exactly `signatureByteCount` bytes; the
    /// DigestInfo must be the exact DER encoding (a missing NULL parameter is refused).
    public func isValidPKCS1v15SHA256Signature(_ signature: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer)
        -> Bool
    {
        guard signature.count == signatureByteCount else { return false }
        return unsafe withUnsafeTemporaryAllocation(byteCount: SHA256.byteCount, alignment: 8) { digest in
            unsafe SHA256.hash(message, into: digest)
            return unsafe verifier.verify(signature: signature, sha256Digest: UnsafeRawBufferPointer(digest))
        }
    }

    /// Whether `signature` is a valid RSASSA-PKCS1-v1_5 SHA-256 signature of `message`.
    public func isValidPKCS1v15SHA256Signature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        unsafe signature.withUnsafeBytes { signature in
            unsafe message.withUnsafeBytes { message in unsafe isValidPKCS1v15SHA256Signature(signature, for: message) }
        }
    }
}
