// Unsafe: the contexts it lends are used by one call at a time; signatures and digests are buffers
// borrowed for that call.

/// Prepared signing or verification contexts for one key, reused across calls.
///
/// OpenSSL 3.0 re-fetches the signature algorithm and the digest every time a context is
/// created and initialised, a cost of the order of the verification itself. A context,
/// once initialised, can run any number of sign or verify operations (this is how
/// `openssl speed` drives it), so each call takes an idle context (or prepares a new one when
/// calls overlap), uses it alone, and returns it. A verification that fails leaves the context
/// reusable; a signing failure discards it.
final class SignatureContextPool: Sendable {
    enum Scheme: Sendable {
        /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 §8.2).
        case rsaPKCS1v15SHA256
        /// ECDSA with SHA-256 (FIPS 186-4 §6), DER signatures.
        case ecdsaSHA256

        var usesPKCS1Padding: Bool { self == .rsaPKCS1v15SHA256 }
    }

    private let key: EVPPKey
    private let scheme: Scheme
    private let verifiers = IdleObjects<EVPPKeyContext>()
    private let signers = IdleObjects<EVPPKeyContext>()

    init(key: EVPPKey, scheme: Scheme) {
        self.key = key
        self.scheme = scheme
    }

    /// Whether `signature` is valid over the SHA-256 `digest`: OpenSSL's own verification
    /// (for RSA, `RSA_verify` with the DigestInfo it encodes itself).
    func verify(signature: UnsafeRawBufferPointer, sha256Digest digest: UnsafeRawBufferPointer) -> Bool {
        guard let context = verifiers.take() ?? prepared(forSigning: false) else {
            OpenSSLErrorQueue.clear()
            return false
        }
        let isValid = unsafe context.verify(signature: signature, digest: digest)
        if !isValid { OpenSSLErrorQueue.clear() }
        verifiers.park(context)
        return isValid
    }

    /// The signature of the SHA-256 `digest` (RSA: exactly the modulus length; EC: DER).
    func sign(sha256Digest digest: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let context = signers.take() ?? prepared(forSigning: true),
            let signature = unsafe context.sign(digest: digest, maximumByteCount: key.maximumSignatureByteCount)
        else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        signers.park(context)
        return signature
    }

    private func prepared(forSigning: Bool) -> EVPPKeyContext? {
        guard let context = EVPPKeyContext(key: key) else { return nil }
        let ready =
            forSigning
            ? context.prepareSigning(digest: FetchedDigest.sha256, rsaPKCS1Padding: scheme.usesPKCS1Padding)
            : context.prepareVerification(digest: FetchedDigest.sha256, rsaPKCS1Padding: scheme.usesPKCS1Padding)
        return ready ? context : nil
    }
}
