internal import CAppNativeCurl

// Unsafe: curl_easy_strerror returns a static NUL-terminated string for any code.

extension ClientError {
    /// Maps a failed transfer's `CURLcode` to a client error.
    ///
    /// - Parameters:
    ///   - curlCode: the transfer's result, not `CURLE_OK`.
    ///   - detail: curl's error-buffer message: names hosts, addresses and steps, never request
    ///     headers or bodies.
    ///   - origin: `host:port` of the request; the path and query are never included.
    init(curlCode: CURLcode, detail: String, origin: String, file: String = #fileID, line: Int = #line) {
        let code: Code =
            switch curlCode {
            case CURLE_OPERATION_TIMEDOUT:
                .timeout
            case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
                .connectFailed
            case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
                CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
                CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND,
                CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED,
                CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
                .tlsFailed
            case CURLE_FILESIZE_EXCEEDED:
                .responseTooLarge
            case CURLE_UNSUPPORTED_PROTOCOL:
                // The scheme was checked before the transfer: this is a redirect towards one.
                .insecureScheme
            case CURLE_URL_MALFORMAT:
                .invalidURL
            case CURLE_ABORTED_BY_CALLBACK:
                .cancelled
            default:
                .transport
            }
        let summary = unsafe String(cString: curl_easy_strerror(curlCode))
        let suffix = detail.isEmpty ? "" : ": \(detail)"
        self.init(code, reason: "\(origin): \(summary) (curl \(curlCode.rawValue))\(suffix)", file: file, line: line)
    }
}
