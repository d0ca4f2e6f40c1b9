// Unsafe (OpenSSL EVP): keys and contexts are owned by the handle classes in OpenSSL/; inputs are
// buffers borrowed for the call with their lengths, and outputs are written into buffers allocated
// with the size OpenSSL reports or the algorithm fixes.

/// A P-256 private key for ES256 signing (RFC 7518 §3.4): APNs provider tokens (the `.p8` key
/// Apple issues is exactly this, PKCS #8 PEM) and identity assertions.
///
/// Prints as `[redacted]`. One instance may be shared by any number of threads (each signature
/// runs on a context of its own).
public final class P256SigningKey: Sendable {
    private let key: EVPPKey
    private let signer: SignatureContextPool
    /// The matching public key.
    public let publicKey: P256PublicKey

    /// A key from PEM text holding one `PRIVATE KEY` (PKCS #8, the shape of an APNs `.p8` file)
    /// or `EC PRIVATE KEY` (SEC 1, RFC 5915) block; surrounding whitespace and a leading
    /// `EC PARAMETERS` block are ignored.
    /// - Throws: `.invalidPEM` for malformed PEM; `.unsupportedKey` for encrypted PEM, an RSA key
    ///   or another curve; `.invalidKey` if the DER does not parse or the key pair is inconsistent.
    public convenience init(pkcs8PEM: String) throws(CryptoError) {
        let block = try PEMDocument.decodeBlock(pkcs8PEM, acceptedLabels: ["PRIVATE KEY", "EC PRIVATE KEY"])
        guard let key = unsafe block.der.withUnsafeBytes({ unsafe EVPPKey.decodePrivateKey($0) }) else {
            throw CryptoError(.invalidKey, "\(block.label) block is not a DER private key")
        }
        try self.init(validating: key)
    }

    private init(validating key: EVPPKey) throws(CryptoError) {
        let coordinates = try P256PublicKey.checkedCoordinates(of: key)
        guard key.isKeyPairValid else {
            throw CryptoError(.invalidKey, "P-256 private key failed OpenSSL key-pair validation")
        }
        publicKey = try P256PublicKey(x: coordinates.x, y: coordinates.y)
        self.key = key
        signer = SignatureContextPool(key: key, scheme: .ecdsaSHA256)
    }

    /// A new random key.
    /// - Throws: `.keyGenerationFailed` if OpenSSL fails.
    public static func generate() throws(CryptoError) -> P256SigningKey {
        guard let key = EVPPKey.generateEC(group: "P-256") else {
            throw CryptoError(.keyGenerationFailed, "OpenSSL could not generate a P-256 key")
        }
        return try P256SigningKey(validating: key)
    }

    /// The ES256 signature of `message`: ECDSA P-256 over SHA-256, returned as 64 bytes
    /// `r || s`, each left-padded to 32 bytes (RFC 7518 §3.4). Randomised: two calls give
    /// different bytes, both valid.
    /// - Throws: `.signingFailed` if OpenSSL fails.
    public func signature(for message: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        let der = unsafe withUnsafeTemporaryAllocation(byteCount: SHA256.byteCount, alignment: 8) { digest in
            unsafe SHA256.hash(message, into: digest)
            return unsafe signer.sign(sha256Digest: UnsafeRawBufferPointer(digest))
        }
        guard let der, let parsed = unsafe der.withUnsafeBytes({ unsafe ECDSASignature(der: $0) }) else {
            throw CryptoError(.signingFailed, "ECDSA P-256 signing failed")
        }
        return parsed.rawRS
    }

    /// The ES256 signature of `message` (see the buffer overload).
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        // Array.withUnsafeBytes only rethrows untyped errors; carry the typed one out in a Result.
        unsafe try message.withUnsafeBytes { buffer in Result { () throws(CryptoError) in unsafe try signature(for: buffer) } }.get()
    }

    /// The key as unencrypted PKCS #8 PEM (the `.p8` shape), for writing dev and test key files.
    /// The returned string is secret and cannot be wiped: write it out and drop it.
    public var pkcs8PEM: String { key.pkcs8PEM }
}

extension P256SigningKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "P256SigningKey([redacted])" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
