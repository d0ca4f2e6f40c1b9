internal import CAppNativeOpenSSL

/// Owns one `EVP_PKEY`: a parsed or generated RSA or EC key.
@safe
final class EVPPKey: @unchecked Sendable {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    // Invariant: the EVP_PKEY is built completely before this object exists and is never mutated
    // afterwards; all per-operation state lives in EVPPKeyContext objects, each used by one
    // thread at a time. That is the condition under which OpenSSL allows one EVP_PKEY to be used
    // from many threads at once (openssl-threads(7)).
    private let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        unsafe self.pointer = pointer
    }

    deinit {
        unsafe EVP_PKEY_free(pointer)
    }

    /// Lends the raw pointer for one call while this object is guaranteed alive.
    func withPointer<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { unsafe try body(pointer) }
    }

    // MARK: Decoding

    /// Decodes a DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7). Nil if it does not parse or if
    /// bytes follow the structure.
    static func decodeSubjectPublicKeyInfo(_ der: UnsafeRawBufferPointer) -> EVPPKey? {
        guard let base = der.baseAddress, der.count > 0 else { return nil }
        let start = unsafe base.assumingMemoryBound(to: UInt8.self)
        var cursor: UnsafePointer<UInt8>? = unsafe UnsafePointer(start)
        guard let decoded = unsafe d2i_PUBKEY(nil, &cursor, der.count) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        let key = unsafe EVPPKey(owning: decoded)
        guard unsafe cursor == UnsafePointer(start + der.count) else { return nil }
        return key
    }

    /// Decodes a DER private key: PKCS #8 PrivateKeyInfo (RFC 5208), PKCS #1 RSAPrivateKey
    /// (RFC 8017 A.1.2) or SEC 1 ECPrivateKey (RFC 5915). Nil if it does not parse or if bytes
    /// follow the structure.
    static func decodePrivateKey(_ der: UnsafeRawBufferPointer) -> EVPPKey? {
        guard let base = der.baseAddress, der.count > 0 else { return nil }
        let start = unsafe base.assumingMemoryBound(to: UInt8.self)
        var cursor: UnsafePointer<UInt8>? = unsafe UnsafePointer(start)
        guard let decoded = unsafe d2i_AutoPrivateKey_ex(nil, &cursor, der.count, nil, nil) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        // The decoders try several structures and may leave entries even on success.
        OpenSSLErrorQueue.clear()
        let key = unsafe EVPPKey(owning: decoded)
        guard unsafe cursor == UnsafePointer(start + der.count) else { return nil }
        return key
    }

    // MARK: Generation

    /// A new RSA key with public exponent 65537 (OpenSSL's default).
    static func generateRSA(bits: Int) -> EVPPKey? {
        guard let context = EVPPKeyContext(algorithm: "RSA"),
            context.prepareKeyGeneration(),
            context.setRSAKeyBits(bits),
            let key = context.generate()
        else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return key
    }

    /// A new EC key on the named group (`"P-256"`).
    static func generateEC(group: String) -> EVPPKey? {
        guard let context = EVPPKeyContext(algorithm: "EC"),
            context.prepareKeyGeneration(),
            context.setGroupName(group),
            let key = context.generate()
        else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return key
    }

    // MARK: Inspection

    /// Whether the key's type is `name` ("RSA", "RSA-PSS", "EC", ...).
    func isA(_ name: String) -> Bool {
        unsafe EVP_PKEY_is_a(pointer, name) == 1
    }

    /// The largest signature this key produces (`EVP_PKEY_get_size`).
    var maximumSignatureByteCount: Int { unsafe Int(EVP_PKEY_get_size(pointer)) }

    /// The EC group's short name (`"prime256v1"` for P-256), or nil for other keys and for
    /// explicit curve parameters.
    var groupName: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        let status = unsafe EVP_PKEY_get_group_name(pointer, &buffer, buffer.count, &length)
        guard status == 1, length > 0, length < buffer.count else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The RSA modulus n.
    var rsaModulus: BigNumber? { bigNumber(OSSL_PKEY_PARAM_RSA_N) }

    /// The RSA public exponent e.
    var rsaPublicExponent: BigNumber? { bigNumber(OSSL_PKEY_PARAM_RSA_E) }

    private func bigNumber(_ name: String) -> BigNumber? {
        var value: OpaquePointer?
        guard unsafe EVP_PKEY_get_bn_param(pointer, name, &value) == 1, let value = unsafe value else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return unsafe BigNumber(owning: value)
    }

    /// The EC public point's affine x coordinate.
    var ecPublicX: BigNumber? { bigNumber(OSSL_PKEY_PARAM_EC_PUB_X) }

    /// The EC public point's affine y coordinate.
    var ecPublicY: BigNumber? { bigNumber(OSSL_PKEY_PARAM_EC_PUB_Y) }

    /// The public key as DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7).
    var subjectPublicKeyInfoDER: [UInt8] {
        let length = unsafe Int(i2d_PUBKEY(pointer, nil))
        precondition(length > 0, "i2d_PUBKEY could not size a key it decoded or generated")
        return unsafe [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            var cursor = buffer.baseAddress
            let written = unsafe Int(i2d_PUBKEY(pointer, &cursor))
            precondition(written == length, "i2d_PUBKEY wrote an unexpected length")
            initialized = written
        }
    }

    /// The private key as unencrypted PKCS #8 PEM (the `PRIVATE KEY` label of RFC 7468 §10).
    var pkcs8PEM: String {
        guard let bio = MemoryBIO(),
            unsafe PEM_write_bio_PKCS8PrivateKey(bio.pointer, pointer, nil, nil, 0, nil, nil) == 1
        else {
            OpenSSLErrorQueue.clear()
            preconditionFailure("PEM_write_bio_PKCS8PrivateKey failed for a key that holds private material")
        }
        return bio.text
    }

    // MARK: Validation

    /// See `EVPPKeyContext.checkPublicKey(quick:)`.
    func isPublicKeyValid(quick: Bool) -> Bool {
        guard let context = EVPPKeyContext(key: self), context.checkPublicKey(quick: quick) else {
            OpenSSLErrorQueue.clear()
            return false
        }
        return true
    }

    /// See `EVPPKeyContext.checkKeyPair()`.
    var isKeyPairValid: Bool {
        guard let context = EVPPKeyContext(key: self), context.checkKeyPair() else {
            OpenSSLErrorQueue.clear()
            return false
        }
        return true
    }
}
