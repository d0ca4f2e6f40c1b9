internal import CAppNativeCurl

/// Owns one `CURLU` handle (docs/style.md §2). Parsing with curl's own URL parser means the policy
/// checks the URL exactly as the transfer will interpret it: the same scheme, the same
/// normalised host (`127.1` and `0x7f.0.0.1` both come back as `127.0.0.1`), the same port.
@safe
final class CurlURL {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    enum Failure: Error {
        case unsupportedScheme
        case malformed(String)
        case outOfMemory
    }

    private let handle: OpaquePointer

    /// Parses an absolute URL; a scheme is required (no guessing, no default scheme).
    init(parsing text: String) throws(Failure) {
        CurlGlobal.ensureInitialized()
        guard let handle = unsafe curl_url() else { throw .outOfMemory }
        unsafe self.handle = handle
        let result = unsafe curl_url_set(handle, CURLUPART_URL, text, 0)
        switch result {
        case CURLUE_OK:
            break
        case CURLUE_UNSUPPORTED_SCHEME:
            throw .unsupportedScheme
        case CURLUE_OUT_OF_MEMORY:
            throw .outOfMemory
        default:
            throw unsafe .malformed(String(cString: curl_url_strerror(result)))
        }
    }

    deinit {
        unsafe curl_url_cleanup(handle)
    }

    var scheme: String? { part(CURLUPART_SCHEME) }
    var host: String? { part(CURLUPART_HOST) }
    var user: String? { part(CURLUPART_USER) }
    var password: String? { part(CURLUPART_PASSWORD) }
    /// The explicit port, or the scheme's default one.
    var port: Int? { part(CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap { Int($0) } }

    private func part(_ which: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard unsafe curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value = unsafe value else { return nil }
        defer { unsafe curl_free(value) }
        return unsafe String(cString: value)
    }
}
