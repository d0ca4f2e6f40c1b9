internal import CAppNativeOpenSSL

/// Owns one memory `BIO` used as the sink for OpenSSL's PEM writers.
///
/// The buffer behind a memory BIO is grown with `BUF_MEM_grow_clean` and released with
/// `OPENSSL_clear_free`, so private key PEM written here is wiped when the BIO is freed.
final class MemoryBIO {
    let pointer: OpaquePointer

    init?() {
        guard let bio = BIO_new(BIO_s_mem()) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        pointer = bio
    }

    deinit {
        BIO_free(pointer)
    }

    /// Everything written so far, as text.
    var text: String {
        var start: UnsafeMutablePointer<CChar>?
        let count = appnative_openssl_bio_get_mem_data(pointer, &start)
        guard let start, count > 0 else { return "" }
        return start.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
            String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
    }
}
