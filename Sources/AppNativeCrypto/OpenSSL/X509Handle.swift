internal import CAppNativeOpenSSL

/// Owns one parsed `X509` certificate.
final class X509Handle: @unchecked Sendable {
    // Invariant: the X509 is decoded completely in `decode` and never mutated afterwards; the
    // calls made on it here (`X509_get_pubkey`) only read it, which OpenSSL allows from any thread.
    private let pointer: OpaquePointer

    private init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }

    /// Decodes a DER certificate (RFC 5280 §4.1). Nil if it does not parse or if bytes follow it.
    static func decode(_ der: UnsafeRawBufferPointer) -> X509Handle? {
        guard let base = der.baseAddress, der.count > 0 else { return nil }
        let start = base.assumingMemoryBound(to: UInt8.self)
        var cursor: UnsafePointer<UInt8>? = UnsafePointer(start)
        guard let decoded = d2i_X509(nil, &cursor, der.count) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        let certificate = X509Handle(owning: decoded)
        guard cursor == UnsafePointer(start + der.count) else { return nil }
        return certificate
    }

    /// The subject public key, as a key of its own (`X509_get_pubkey` returns a new reference).
    var publicKey: EVPPKey? {
        guard let key = X509_get_pubkey(pointer) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return EVPPKey(owning: key)
    }
}
