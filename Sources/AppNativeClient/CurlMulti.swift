internal import CAppNativeCurl

/// Owns the one `CURLM` multi handle of a client (docs/style.md §2): its connection cache (kept-alive
/// HTTP/1.1 connections and multiplexed HTTP/2 connections), its DNS cache and its wake-up pipe.
///
/// `@unchecked Sendable` invariant: every method except `wakeUp()` is called on the client's
/// worker thread only, and `wakeUp()` wraps `curl_multi_wakeup`, which libcurl documents as
/// callable from any thread. The handle is freed in `deinit`, which runs once both the worker
/// thread (after it removed every easy handle and returned) and the client released it.
@safe
final class CurlMulti: @unchecked Sendable {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    @safe
    struct Completion {
        // @safe: `handle` only names a transfer the worker looks up; it is never dereferenced.
        var handle: UnsafeMutableRawPointer
        var result: CURLcode
    }

    private let handle: UnsafeMutableRawPointer
    /// Every connection socket of this handle when it corks them (`CurlHTTPClient`'s
    /// `connectionsStayBusy`). Released after `curl_multi_cleanup`, which closes the cached
    /// connections through it.
    private let corkedSockets: CorkedSockets?

    init(connectionsStayBusy: Bool, connectionsPerHost: Int?) {
        corkedSockets = connectionsStayBusy ? CorkedSockets() : nil
        CurlGlobal.ensureInitialized()
        guard let handle = unsafe curl_multi_init() else {
            preconditionFailure("curl_multi_init failed (out of memory at startup)")
        }
        unsafe self.handle = handle
        // Multiplex HTTP/2 streams over one connection (libcurl's default since 7.62; stated
        // because APNs depends on it).
        let result = unsafe appnative_curl_multi_setopt_long(handle, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        precondition(result == CURLM_OK, "CURLMOPT_PIPELINING rejected: \(result.rawValue)")
        // Up to 1000 streams per HTTP/2 connection (libcurl's own default is 100), still capped by
        // what the server announces: APNs allows up to 1000, and a second connection should open
        // only when the server's limit is reached.
        let streams = unsafe appnative_curl_multi_setopt_long(handle, CURLMOPT_MAX_CONCURRENT_STREAMS, 1000)
        precondition(streams == CURLM_OK, "CURLMOPT_MAX_CONCURRENT_STREAMS rejected: \(streams.rawValue)")
        if let connectionsPerHost {
            // Without a cap, a transfer that finds every connection at its stream limit opens
            // another, and until the server's SETTINGS frame arrives libcurl assumes 100
            // streams: a burst on a fresh connection could open dozens. With the cap it waits
            // in libcurl's pending queue until a stream or connection frees.
            let cap = unsafe appnative_curl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, connectionsPerHost)
            precondition(cap == CURLM_OK, "CURLMOPT_MAX_HOST_CONNECTIONS rejected: \(cap.rawValue)")
        }
    }

    deinit {
        unsafe curl_multi_cleanup(handle)
    }

    func add(_ easy: CurlEasy) throws(ClientError) {
        // Options are per handle and a reset clears them, so they are set for every transfer.
        if let corkedSockets {
            try corkedSockets.attach(to: easy)
            try easy.keepTLSBuffers()
        }
        let added = unsafe curl_multi_add_handle(handle, easy.handle)
        guard added == CURLM_OK else {
            throw ClientError(
                .transport, reason: unsafe "curl_multi_add_handle failed: \(String(cString: curl_multi_strerror(added)))")
        }
    }

    func remove(_ easy: CurlEasy) {
        let result = unsafe curl_multi_remove_handle(handle, easy.handle)
        // Only a handle we never added (or already removed) fails here: bookkeeping is wrong.
        precondition(result == CURLM_OK, "curl_multi_remove_handle failed: \(result.rawValue)")
    }

    /// Advances every transfer as far as it can go without blocking; callbacks run here.
    func perform() -> CURLMcode {
        var running: Int32 = 0
        return unsafe curl_multi_perform(handle, &running)
    }

    /// Sends what the pass before it wrote, then sleeps until a socket is ready, curl's next
    /// internal timeout, `wakeUp()`, or `timeoutMilliseconds`, whichever comes first.
    func poll(timeoutMilliseconds: Int32) -> CURLMcode {
        corkedSockets?.flush()
        return unsafe curl_multi_poll(handle, nil, 0, timeoutMilliseconds, nil)
    }

    /// Interrupts `poll` from any thread. A wake-up sent while the worker is not polling is
    /// remembered, so none is lost.
    func wakeUp() {
        _ = unsafe curl_multi_wakeup(handle)
    }

    /// The next finished transfer, if any.
    func nextCompletion() -> Completion? {
        var remaining: Int32 = 0
        while let message = unsafe curl_multi_info_read(handle, &remaining) {
            guard unsafe message.pointee.msg == CURLMSG_DONE, let easy = unsafe message.pointee.easy_handle else { continue }
            return unsafe Completion(handle: easy, result: message.pointee.data.result)
        }
        return nil
    }
}
