internal import CAppNativeOpenSSL

/// This thread's OpenSSL error queue.
///
/// A failed OpenSSL call (including an ordinary "signature does not verify") leaves entries on
/// the calling thread's queue. TLS code reads that queue (`SSL_get_error`), so a stale entry from
/// a failed verification could later be misread as a TLS failure: every failure path clears it.
/// OpenSSL's reason texts are not copied into `CryptoError`; each call site states which check
/// failed instead.
enum OpenSSLErrorQueue {
    /// Empties the queue.
    static func clear() {
        ERR_clear_error()
    }
}
