internal import CAppNativeCurl

/// Owns one `CURL` easy handle, the buffer curl writes error messages into and the header
/// list the handle points at (docs/style.md §2). Used by the worker thread only.
///
/// Option setters throw instead of trapping: a rejected option fails one request, it does not
/// take the gateway down.
@safe
final class CurlEasy {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    /// The raw handle; identifies the transfer in `curl_multi_info_read` messages.
    let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: CurlHeaderList?

    init() throws(ClientError) {
        CurlGlobal.ensureInitialized()
        guard let handle = unsafe curl_easy_init() else {
            throw ClientError(.transport, reason: "curl_easy_init failed")
        }
        unsafe self.handle = handle
        unsafe errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        unsafe errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        unsafe try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    /// Returns the handle to its freshly created state for the next transfer (`curl_easy_reset`
    /// clears every option; curl keeps its buffers, so a reused handle skips the tens of KB a
    /// new one allocates). `false` when the handle cannot be prepared again: drop it.
    func reset() -> Bool {
        unsafe curl_easy_reset(handle)
        headerList = nil
        unsafe errorBuffer[0] = 0
        return unsafe (try? set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))) != nil
    }

    deinit {
        // The handle goes first: it may point at the error buffer and the header list until then.
        unsafe curl_easy_cleanup(handle)
        unsafe errorBuffer.deinitialize(count: Int(CURL_ERROR_SIZE))
        unsafe errorBuffer.deallocate()
    }

    func set(_ option: CURLoption, _ value: Int) throws(ClientError) {
        unsafe try check(appnative_curl_setopt_long(handle, option, value), option)
    }

    /// curl copies string options, so the Swift string need only live for the call;
    /// `nil` resets the option to its built-in default (or to none).
    func set(_ option: CURLoption, _ value: String?) throws(ClientError) {
        let result: CURLcode =
            if let value {
                unsafe appnative_curl_setopt_string(handle, option, value)
            } else {
                unsafe appnative_curl_setopt_string(handle, option, nil)
            }
        try check(result, option)
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(ClientError) {
        unsafe try check(appnative_curl_setopt_pointer(handle, option, pointer), option)
    }

    func set(_ option: CURLoption, offset: Int64) throws(ClientError) {
        unsafe try check(appnative_curl_setopt_offset(handle, option, curl_off_t(offset)), option)
    }

    func set(_ option: CURLoption, callback: appnative_curl_write_callback) throws(ClientError) {
        unsafe try check(appnative_curl_setopt_write_callback(handle, option, callback), option)
    }

    func setSocketCallbacks(
        opened: appnative_curl_sockopt_callback, closed: appnative_curl_closesocket_callback
    ) throws(ClientError) {
        unsafe try check(appnative_curl_setopt_sockopt_callback(handle, opened), CURLOPT_SOCKOPTFUNCTION)
        unsafe try check(appnative_curl_setopt_closesocket_callback(handle, closed), CURLOPT_CLOSESOCKETFUNCTION)
    }

    func keepTLSBuffers() throws(ClientError) {
        unsafe try check(appnative_curl_setopt_keep_tls_buffers(handle), CURLOPT_SSL_CTX_FUNCTION)
    }

    /// Points the handle at `list` and keeps the list alive as long as the handle.
    func setHeaders(_ list: CurlHeaderList) throws(ClientError) {
        headerList = list
        unsafe try set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(list.head))
    }

    /// Sets the request content. `COPYPOSTFIELDS` copies the bytes into the handle, so nothing
    /// on the Swift side has to outlive the call; the size goes first so zero bytes in the body
    /// are not taken for a C string's end.
    func setBody(_ bytes: [UInt8]) throws(ClientError) {
        try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(bytes.count))
        let result: CURLcode = unsafe bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress {
                return unsafe appnative_curl_setopt_pointer(
                    handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
            }
            // An empty array may have no storage; curl still needs a valid pointer.
            return unsafe appnative_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
        }
        try check(result, CURLOPT_COPYPOSTFIELDS)
    }

    func info(_ info: CURLINFO) -> Int {
        var value = 0
        guard unsafe appnative_curl_getinfo_long(handle, info, &value) == CURLE_OK else { return 0 }
        return value
    }

    /// curl's detail message for the last failure: printable ASCII only, bounded, so a peer
    /// cannot smuggle control characters or a wall of text into a log line through it.
    var errorMessage: String {
        let raw = unsafe String(cString: errorBuffer)
        let printable = raw.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7f }
        return String(String.UnicodeScalarView(printable.prefix(200)))
    }

    private func check(_ result: CURLcode, _ option: CURLoption) throws(ClientError) {
        guard result == CURLE_OK else {
            throw ClientError(
                .transport,
                reason: unsafe "curl rejected option \(option.rawValue): \(String(cString: curl_easy_strerror(result)))"
            )
        }
    }
}
