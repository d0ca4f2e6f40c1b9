internal import CAppNativeOpenSSL

/// A MAC algorithm fetched once from the default provider (`EVP_MAC_fetch`).
@safe
final class FetchedMAC: @unchecked Sendable {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    // Invariant: the EVP_MAC is fetched in init and never mutated; OpenSSL allows one fetched
    // EVP_MAC to be used from any number of threads at once (openssl-threads(7)).
    let pointer: OpaquePointer

    /// HMAC, fetched on first use and kept for the life of the process.
    static let hmac = FetchedMAC(name: "HMAC")

    private init(name: String) {
        guard let mac = unsafe EVP_MAC_fetch(nil, name, nil) else {
            OpenSSLErrorQueue.clear()
            preconditionFailure("OpenSSL's default provider has no \(name) MAC")
        }
        unsafe pointer = mac
    }

    deinit {
        unsafe EVP_MAC_free(pointer)
    }
}
