internal import CAppNativeCurl

/// `curl_global_init` exactly once per process, before the first handle is made.
///
/// libcurl requires the call before any other thread uses it; a `static let` initialiser runs
/// once under the runtime's lock, so concurrent first uses are safe. `curl_global_cleanup` is
/// never called: handles may live until the process exits.
enum CurlGlobal {
    private static let initialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    static func ensureInitialized() {
        precondition(initialization == CURLE_OK, "curl_global_init failed: \(initialization.rawValue)")
    }
}
