internal import CAppNativeOpenSSL

/// Owns one `EVP_MAC_CTX`.
///
/// A context carries running MAC state. `HMACSHA256` keeps one keyed context as a read-only
/// template and a lock-guarded pool of copies (`duplicate()`); a copy is used by one call at a
/// time and `restart()`ed before it goes back to the pool.
@safe
final class EVPMACContext: @unchecked Sendable {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    // Invariant: a context is never used by two threads at once. The template is only read
    // (EVP_MAC_CTX_dup); every other context is either confined to one call or parked in
    // HMACSHA256's pool, and it moves between the two only under that pool's lock.
    private let pointer: OpaquePointer

    private init(owning pointer: OpaquePointer) {
        unsafe self.pointer = pointer
    }

    deinit {
        unsafe EVP_MAC_CTX_free(pointer)
    }

    /// A context keyed for HMAC-SHA-256 with `key` (RFC 2104), or nil if OpenSSL refused.
    static func hmacSHA256(key: UnsafeRawBufferPointer) -> EVPMACContext? {
        guard let raw = unsafe EVP_MAC_CTX_new(FetchedMAC.hmac.pointer) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        let context = unsafe EVPMACContext(owning: raw)
        // The OSSL_PARAM array only borrows its key and value strings, so it is built and
        // consumed inside these closures.
        let status = unsafe OSSL_MAC_PARAM_DIGEST.withCString { name in
            unsafe "SHA256".withCString { value in
                var params = unsafe [
                    OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: value), 0),
                    OSSL_PARAM_construct_end(),
                ]
                return unsafe EVP_MAC_init(
                    raw, key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count, &params
                )
            }
        }
        guard status == 1 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return context
    }

    /// An independent copy in the same (keyed, nothing absorbed) state, or nil when OpenSSL
    /// could not allocate it. Reading the source is safe while other threads duplicate it too.
    func duplicate() -> EVPMACContext? {
        guard let copy = unsafe EVP_MAC_CTX_dup(pointer) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return unsafe EVPMACContext(owning: copy)
    }

    /// Absorbs `data`, writes the MAC to `output` and restarts the context with the same key
    /// (OpenSSL keeps the keyed inner and outer states). Returns the MAC's length, or nil when
    /// OpenSSL failed, which on a keyed context means it could not allocate.
    func authenticate(_ data: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
        var written = 0
        let succeeded =
            unsafe (data.isEmpty || EVP_MAC_update(pointer, data.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count) == 1)
            && EVP_MAC_final(pointer, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written, output.count) == 1
            && EVP_MAC_init(pointer, nil, 0, nil) == 1
        guard succeeded else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return written
    }
}
