internal import CAppNativeOpenSSL

/// Owns one `EVP_PKEY_CTX`: the per-operation state for signing, verifying, checking or
/// generating a key.
///
/// Creating and initialising a context is expensive in OpenSSL 3.0 (fetches and provider setup
/// on every init), so signing and verification contexts are prepared once and reused through
/// `SignatureContextPool`.
@safe
final class EVPPKeyContext: @unchecked Sendable {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    // Invariant: a context is never used by two threads at once. It is either confined to the
    // call that created it or parked in a SignatureContextPool, and it moves between callers only
    // under that pool's lock.
    private let pointer: OpaquePointer

    /// A context operating on `key` (`EVP_PKEY_CTX_new_from_pkey`; the context holds a reference).
    init?(key: EVPPKey) {
        guard let context = unsafe key.withPointer({ unsafe EVP_PKEY_CTX_new_from_pkey(nil, $0, nil) }) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        unsafe pointer = context
    }

    /// A context for generating a key of `algorithm` ("RSA", "EC").
    init?(algorithm: String) {
        guard let context = unsafe EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        unsafe pointer = context
    }

    deinit {
        unsafe EVP_PKEY_CTX_free(pointer)
    }

    // MARK: Signatures over a precomputed digest

    /// Prepares a verification with `digest` as the signature's hash and, for RSA,
    /// PKCS #1 v1.5 padding (RFC 8017 §8.2).
    func prepareVerification(digest: FetchedDigest, rsaPKCS1Padding: Bool) -> Bool {
        guard unsafe EVP_PKEY_verify_init(pointer) == 1 else { return false }
        return configure(digest: digest, rsaPKCS1Padding: rsaPKCS1Padding)
    }

    /// Prepares a signature; the same parameters as `prepareVerification`.
    func prepareSigning(digest: FetchedDigest, rsaPKCS1Padding: Bool) -> Bool {
        guard unsafe EVP_PKEY_sign_init(pointer) == 1 else { return false }
        return configure(digest: digest, rsaPKCS1Padding: rsaPKCS1Padding)
    }

    private func configure(digest: FetchedDigest, rsaPKCS1Padding: Bool) -> Bool {
        if rsaPKCS1Padding, unsafe appnative_openssl_set_pkcs1_padding(pointer) != 1 { return false }
        return unsafe EVP_PKEY_CTX_set_signature_md(pointer, digest.pointer) == 1
    }

    /// Whether `signature` verifies over `digest` (`EVP_PKEY_verify` returns 1 only for a match).
    func verify(signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer) -> Bool {
        guard let signatureBase = signature.baseAddress, let digestBase = digest.baseAddress else { return false }
        return unsafe EVP_PKEY_verify(
            pointer,
            signatureBase.assumingMemoryBound(to: UInt8.self), signature.count,
            digestBase.assumingMemoryBound(to: UInt8.self), digest.count
        ) == 1
    }

    /// Signs `digest`; the signature is at most `maximumByteCount` bytes (`EVP_PKEY_get_size`).
    func sign(digest: UnsafeRawBufferPointer, maximumByteCount: Int) -> [UInt8]? {
        guard let digestBase = digest.baseAddress else { return nil }
        var failed = false
        let signature = unsafe [UInt8](unsafeUninitializedCapacity: maximumByteCount) { buffer, initialized in
            var length = maximumByteCount
            if unsafe EVP_PKEY_sign(
                pointer, buffer.baseAddress, &length,
                digestBase.assumingMemoryBound(to: UInt8.self), digest.count
            ) == 1, length <= maximumByteCount {
                initialized = length
            } else {
                failed = true
                initialized = 0
            }
        }
        return failed ? nil : signature
    }

    // MARK: Validation

    /// The provider's public-key validation. RSA (OpenSSL 3.0 has one level): the modulus is odd,
    /// composite, not a prime power and free of factors below 752, the exponent odd and in range
    /// (SP 800-56B §6.4.2.1). EC, `quick`: the point is on the curve and not at infinity, which on
    /// a prime-order curve such as P-256 also fixes its order; full: also checks n·Q = O.
    func checkPublicKey(quick: Bool) -> Bool {
        unsafe (quick ? EVP_PKEY_public_check_quick(pointer) : EVP_PKEY_public_check(pointer)) == 1
    }

    /// The provider's full key-pair validation (`EVP_PKEY_check`).
    func checkKeyPair() -> Bool {
        unsafe EVP_PKEY_check(pointer) == 1
    }

    // MARK: Key generation

    func prepareKeyGeneration() -> Bool {
        unsafe EVP_PKEY_keygen_init(pointer) == 1
    }

    func setRSAKeyBits(_ bits: Int) -> Bool {
        unsafe EVP_PKEY_CTX_set_rsa_keygen_bits(pointer, Int32(bits)) == 1
    }

    func setGroupName(_ name: String) -> Bool {
        unsafe EVP_PKEY_CTX_set_group_name(pointer, name) == 1
    }

    func generate() -> EVPPKey? {
        var generated: OpaquePointer?
        guard unsafe EVP_PKEY_generate(pointer, &generated) == 1, let generated = unsafe generated else { return nil }
        return unsafe EVPPKey(owning: generated)
    }
}
