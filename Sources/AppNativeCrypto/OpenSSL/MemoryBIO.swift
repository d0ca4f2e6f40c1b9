internal import CAppNativeOpenSSL

/// Owns one memory `BIO` used as the sink for OpenSSL's PEM writers.
///
/// The buffer behind a memory BIO is grown with `BUF_MEM_grow_clean` and released with
/// `OPENSSL_clear_free`, so private key PEM written here is wiped when the BIO is freed.
@safe
final class MemoryBIO {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    let pointer: OpaquePointer

    init?() {
        guard let bio = unsafe BIO_new(BIO_s_mem()) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        unsafe pointer = bio
    }

    deinit {
        unsafe BIO_free(pointer)
    }

    /// Everything written so far, as text.
    var text: String {
        var start: UnsafeMutablePointer<CChar>?
        let count = unsafe appnative_openssl_bio_get_mem_data(pointer, &start)
        guard let start = unsafe start, count > 0 else { return "" }
        return unsafe start.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
            unsafe String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
    }
}
