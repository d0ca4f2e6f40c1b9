internal import CAppNativeOpenSSL

/// A message digest algorithm fetched once from the default provider (`EVP_MD_fetch`).
///
/// Passing a fetched `EVP_MD` to `EVP_Digest` avoids the implicit name lookup that `EVP_sha256()`
/// costs on every call in OpenSSL 3 (openssl-crypto(7), "Performance").
@safe
final class FetchedDigest: @unchecked Sendable {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    // Invariant: the EVP_MD is fetched in init and never mutated; OpenSSL allows one fetched
    // EVP_MD to be used from any number of threads at once (openssl-threads(7)).
    let pointer: OpaquePointer
    let byteCount: Int

    /// SHA-256, fetched on first use and kept for the life of the process.
    static let sha256 = FetchedDigest(name: "SHA256")

    /// SHA-1, for certificate thumbprints only (the `x5t` header of RFC 7515 §4.1.7); never for
    /// signatures or anything that needs collision resistance.
    static let sha1 = FetchedDigest(name: "SHA1")

    private init(name: String) {
        guard let digest = unsafe EVP_MD_fetch(nil, name, nil) else {
            OpenSSLErrorQueue.clear()
            preconditionFailure("OpenSSL's default provider has no \(name) digest")
        }
        unsafe pointer = digest
        byteCount = unsafe Int(EVP_MD_get_size(digest))
    }

    deinit {
        unsafe EVP_MD_free(pointer)
    }

    /// Writes the digest of `data` to the start of `output` (at least `byteCount` bytes).
    /// Traps on failure: with a fetched digest that only happens when memory is exhausted.
    func digest(_ data: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= byteCount, "digest output buffer too small")
        var written: UInt32 = 0
        let status = unsafe EVP_Digest(
            data.baseAddress, data.count,
            output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
            pointer, nil
        )
        guard status == 1, Int(written) == byteCount else {
            OpenSSLErrorQueue.clear()
            preconditionFailure("EVP_Digest failed with a fetched digest (out of memory)")
        }
    }
}
