internal import CAppNativeOpenSSL

/// Owns one parsed `X509` certificate.
@safe
final class X509Handle: @unchecked Sendable {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    // Invariant: the X509 is decoded completely in `decode` and never mutated afterwards; the
    // calls made on it here (`X509_get_pubkey`) only read it, which OpenSSL allows from any thread.
    private let pointer: OpaquePointer

    private init(owning pointer: OpaquePointer) {
        unsafe self.pointer = pointer
    }

    deinit {
        unsafe X509_free(pointer)
    }

    /// Decodes a DER certificate (RFC 5280 §4.1). Nil if it does not parse or if bytes follow it.
    static func decode(_ der: UnsafeRawBufferPointer) -> X509Handle? {
        guard let base = der.baseAddress, der.count > 0 else { return nil }
        let start = unsafe base.assumingMemoryBound(to: UInt8.self)
        var cursor: UnsafePointer<UInt8>? = unsafe UnsafePointer(start)
        guard let decoded = unsafe d2i_X509(nil, &cursor, der.count) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        let certificate = unsafe X509Handle(owning: decoded)
        guard unsafe cursor == UnsafePointer(start + der.count) else { return nil }
        return certificate
    }

    /// The subject public key, as a key of its own (`X509_get_pubkey` returns a new reference).
    var publicKey: EVPPKey? {
        guard let key = unsafe X509_get_pubkey(pointer) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return unsafe EVPPKey(owning: key)
    }
}
