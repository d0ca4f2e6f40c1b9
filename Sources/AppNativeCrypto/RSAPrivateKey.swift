// Unsafe (OpenSSL EVP): keys and contexts are owned by the handle classes in OpenSSL/; inputs are
// buffers borrowed for the call with their lengths, and outputs are written into buffers allocated
// with the size OpenSSL reports or the algorithm fixes.

/// An RSA private key for RS256 signing (RFC 7518 §3.3): dev-token minting and tests.
///
/// Subject to the same `RSAKeyPolicy` as `RSAPublicKey`. Prints as `[redacted]`. One instance
/// may be shared by any number of threads (each signature runs on a context of its own; RSA
/// blinding state is locked inside OpenSSL).
public final class RSAPrivateKey: Sendable {
    private let key: EVPPKey
    private let signer: SignatureContextPool
    /// The matching public key.
    public let publicKey: RSAPublicKey

    /// A key from PEM text holding one `PRIVATE KEY` (PKCS #8, RFC 5208 / RFC 7468 §10) or
    /// `RSA PRIVATE KEY` (PKCS #1, RFC 8017 A.1.2) block; surrounding whitespace is ignored.
    /// - Throws: `.invalidPEM` for malformed PEM; `.unsupportedKey` for encrypted PEM, a non-RSA
    ///   key or an exponent other than 65537; `.weakKey` below 2048 bits; `.invalidKey` if the
    ///   DER does not parse.
    public convenience init(pem: String) throws(CryptoError) {
        let block = try PEMDocument.decodeBlock(pem, acceptedLabels: ["PRIVATE KEY", "RSA PRIVATE KEY"])
        guard let key = unsafe block.der.withUnsafeBytes({ unsafe EVPPKey.decodePrivateKey($0) }) else {
            throw CryptoError(.invalidKey, "\(block.label) block is not a DER private key")
        }
        try self.init(validating: key)
    }

    private init(validating key: EVPPKey) throws(CryptoError) {
        guard key.isA("RSA") else {
            throw CryptoError(.unsupportedKey, "not an RSA private key")
        }
        guard let modulus = key.rsaModulus?.bigEndianBytes, let exponent = key.rsaPublicExponent?.bigEndianBytes
        else {
            throw CryptoError(.invalidKey, "RSA key has no modulus or exponent")
        }
        publicKey = try RSAPublicKey(modulus: modulus, exponent: exponent)
        self.key = key
        signer = SignatureContextPool(key: key, scheme: .rsaPKCS1v15SHA256)
    }

    /// A new key with public exponent 65537.
    /// - Throws: `.weakKey` below 2048 bits, `.unsupportedKey` above 8192,
    ///   `.keyGenerationFailed` if OpenSSL fails.
    public static func generate(bits: Int = 2048) throws(CryptoError) -> RSAPrivateKey {
        try RSAKeyPolicy.checkGeneration(bits: bits)
        guard let key = EVPPKey.generateRSA(bits: bits) else {
            throw CryptoError(.keyGenerationFailed, "OpenSSL could not generate a \(bits)-bit RSA key")
        }
        return try RSAPrivateKey(validating: key)
    }

    /// The RSASSA-PKCS1-v1_5 SHA-256 signature of `message` (RFC 8017 §8.2.1), exactly
    /// `publicKey.signatureByteCount` bytes. Deterministic: the same message gives the same bytes.
    /// - Throws: `.signingFailed` if OpenSSL fails.
    public func pkcs1v15SHA256Signature(for message: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        let signature = unsafe withUnsafeTemporaryAllocation(byteCount: SHA256.byteCount, alignment: 8) { digest in
            unsafe SHA256.hash(message, into: digest)
            return unsafe signer.sign(sha256Digest: UnsafeRawBufferPointer(digest))
        }
        guard let signature, signature.count == publicKey.signatureByteCount else {
            throw CryptoError(.signingFailed, "RSA PKCS#1 v1.5 signing failed")
        }
        return signature
    }

    /// The RSASSA-PKCS1-v1_5 SHA-256 signature of `message`.
    public func pkcs1v15SHA256Signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        // Array.withUnsafeBytes only rethrows untyped errors; carry the typed one out in a Result.
        unsafe try message.withUnsafeBytes { buffer in
            Result { () throws(CryptoError) in unsafe try pkcs1v15SHA256Signature(for: buffer) }
        }.get()
    }

    /// The key as unencrypted PKCS #8 PEM, for writing dev and test key files. The returned
    /// string is secret and cannot be wiped: write it out and drop it.
    public var pkcs8PEM: String { key.pkcs8PEM }
}

extension RSAPrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "RSAPrivateKey([redacted])" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
