internal import CAppNativeOpenSSL

/// A MAC algorithm fetched once from the default provider (`EVP_MAC_fetch`).
final class FetchedMAC: @unchecked Sendable {
    // Invariant: the EVP_MAC is fetched in init and never mutated; OpenSSL allows one fetched
    // EVP_MAC to be used from any number of threads at once (openssl-threads(7)).
    let pointer: OpaquePointer

    /// HMAC, fetched on first use and kept for the life of the process.
    static let hmac = FetchedMAC(name: "HMAC")

    private init(name: String) {
        guard let mac = EVP_MAC_fetch(nil, name, nil) else {
            OpenSSLErrorQueue.clear()
            preconditionFailure("OpenSSL's default provider has no \(name) MAC")
        }
        pointer = mac
    }

    deinit {
        EVP_MAC_free(pointer)
    }
}
