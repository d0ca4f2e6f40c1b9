internal import CAppNativeCurl

/// Owns one `curl_slist` of header lines (docs/style.md §2). libcurl reads the list during the
/// transfer without copying it, so the easy handle that uses it keeps it alive.
@safe
final class CurlHeaderList {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    private(set) var head: UnsafeMutablePointer<curl_slist>?

    init(lines: [String]) throws(ClientError) {
        for line in lines {
            // curl_slist_append copies the string; on failure the existing list is unchanged.
            guard let appended = unsafe curl_slist_append(head, line) else {
                throw ClientError(.transport, reason: "out of memory building header list")
            }
            unsafe head = appended
        }
    }

    deinit {
        unsafe curl_slist_free_all(head)
    }
}
