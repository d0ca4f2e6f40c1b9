internal import CAppNativeCurl

// Unsafe: libcurl hands the callbacks back the `Unmanaged` pointer this transfer registered on its
// easy handle; the worker keeps the transfer alive until curl has finished with that handle, and the
// buffers curl passes are read for `size * count` bytes within the callback only.

/// One request on the wire: its configured easy handle and the response being collected.
/// Created, called back and dropped on the worker thread only, so it needs no lock.
final class CurlTransfer {
    let easy: CurlEasy
    private let request: PreparedRequest
    private var body: [UInt8] = []
    private var headers: [HTTPHeaderField] = []
    private var headerBytes = 0
    private var isBodyOverLimit = false
    private var isHeaderOverLimit = false

    /// Configures `easy` (a new handle or a reset one) for `request`.
    init(request: PreparedRequest, easy: CurlEasy) throws(ClientError) {
        self.request = request
        self.easy = easy
        try configure()
    }

    /// The option set of every transfer. Everything security-relevant is stated explicitly
    /// rather than left to libcurl's defaults.
    private func configure() throws(ClientError) {
        try easy.set(CURLOPT_URL, request.url)
        // No signals: timeouts must not use SIGALRM in a multi-threaded process.
        try easy.set(CURLOPT_NOSIGNAL, 1)
        // The scheme check again, inside curl, so nothing but what the policy allowed can run.
        try easy.set(CURLOPT_PROTOCOLS_STR, request.target.isCleartext ? "http,https" : "https")
        // A followed redirect may only go to https, even from a cleartext loopback URL: curl
        // cannot ask us whether the redirect's host is loopback.
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "https")
        try easy.set(CURLOPT_FOLLOWLOCATION, request.followsRedirects ? 1 : 0)
        try easy.set(CURLOPT_MAXREDIRS, request.followsRedirects ? 5 : 0)
        // An empty proxy disables the environment's http_proxy/https_proxy/all_proxy; an empty
        // no-proxy list ignores the environment's no_proxy.
        try easy.set(CURLOPT_PROXY, request.proxyURL ?? "")
        try easy.set(CURLOPT_NOPROXY, "")
        try easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)

        try easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        try easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        try easy.set(CURLOPT_PROXY_SSL_VERIFYPEER, 1)
        try easy.set(CURLOPT_PROXY_SSL_VERIFYHOST, 2)
        try easy.set(CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2)
        if let caFile = request.caFile {
            // Instead of the system store, not in addition: clear the built-in CA directory too.
            try easy.set(CURLOPT_CAINFO, caFile)
            try easy.set(CURLOPT_CAPATH, nil)
        }

        let version: Int =
            if !request.usesHTTP2PriorKnowledge {
                Int(CURL_HTTP_VERSION_2TLS)
            } else if request.joinsPriorKnowledgeConnection {
                // Reuses the open h2c connection without a second switch (PriorKnowledgeGate).
                Int(CURL_HTTP_VERSION_2_0)
            } else {
                Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
            }
        try easy.set(CURLOPT_HTTP_VERSION, version)
        // Wait for a connection that may multiplex rather than open a second one.
        try easy.set(CURLOPT_PIPEWAIT, 1)
        try easy.set(CURLOPT_TCP_KEEPALIVE, 1)

        try easy.set(CURLOPT_TIMEOUT_MS, request.timeoutMilliseconds)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeoutMilliseconds)

        try easy.set(CURLOPT_USERAGENT, request.userAgent)
        try easy.setHeaders(CurlHeaderList(lines: request.headerLines))
        if request.isHead {
            try easy.set(CURLOPT_NOBODY, 1)
        } else if let body = request.body {
            try easy.setBody(body)
        }
        if request.needsCustomMethod {
            try easy.set(CURLOPT_CUSTOMREQUEST, request.method)
        }

        if !request.truncatesLargeResponses, !request.isHead, request.maxResponseBytes > 0 {
            // Fails early when the declared Content-Length is already too large; the body
            // callback enforces the cap for chunked and close-delimited bodies (and for a cap
            // of 0, which this option would read as "no limit").
            try easy.set(CURLOPT_MAXFILESIZE_LARGE, offset: Int64(request.maxResponseBytes))
        }

        let context = unsafe Unmanaged.passUnretained(self).toOpaque()
        unsafe try easy.set(CURLOPT_WRITEDATA, pointer: context)
        unsafe try easy.set(
            CURLOPT_WRITEFUNCTION,
            callback: { data, size, count, context in
                guard let context = unsafe context else { return 0 }
                let transfer = unsafe Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return unsafe transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
            })
        unsafe try easy.set(CURLOPT_HEADERDATA, pointer: context)
        unsafe try easy.set(
            CURLOPT_HEADERFUNCTION,
            callback: { data, size, count, context in
                guard let context = unsafe context else { return 0 }
                let transfer = unsafe Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return unsafe transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
            })
    }

    /// Appends body bytes up to the cap. Returning fewer bytes than offered makes curl abort
    /// the transfer with `CURLE_WRITE_ERROR`, which `result(for:)` turns into the outcome.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        let room = request.maxResponseBytes - body.count
        if bytes.count <= room {
            unsafe body.append(contentsOf: bytes)
            return bytes.count
        }
        if request.truncatesLargeResponses {
            unsafe body.append(contentsOf: bytes.prefix(room))
        }
        isBodyOverLimit = true
        return 0
    }

    /// Collects one header line (curl delivers exactly one per call, CRLF included).
    /// A status line starts a new block, so interim 1xx and followed 3xx responses' fields are
    /// dropped and only the final response's remain.
    private func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        headerBytes += bytes.count
        guard headerBytes <= request.maxResponseHeaderBytes else {
            isHeaderOverLimit = true
            return 0
        }
        unsafe HTTPHeaderField.collect(line: bytes, into: &headers)
        return bytes.count
    }

    /// The outcome once curl reports the transfer done with `code`.
    func result(for code: CURLcode) -> Result<HTTPResponse, ClientError> {
        let origin = request.target.origin
        if isHeaderOverLimit {
            return .failure(
                ClientError(
                    .responseTooLarge,
                    reason: "response headers from \(origin) exceed \(request.maxResponseHeaderBytes) bytes")
            )
        }
        if isBodyOverLimit, !request.truncatesLargeResponses {
            return .failure(
                ClientError(
                    .responseTooLarge, reason: "response body from \(origin) exceeds \(request.maxResponseBytes) bytes")
            )
        }
        guard code == CURLE_OK || isBodyOverLimit else {
            var error = ClientError(curlCode: code, detail: easy.errorMessage, origin: origin)
            // libcurl counts the request bytes it hands to the connection (the request line and
            // headers, or the HTTP/2 HEADERS): none means the server never saw this request.
            error.wasNeverSent = easy.info(CURLINFO_REQUEST_SIZE) == 0
            return .failure(error)
        }
        let version: Int =
            switch easy.info(CURLINFO_HTTP_VERSION) {
            case Int(CURL_HTTP_VERSION_2_0): 2
            case Int(CURL_HTTP_VERSION_3): 3
            default: 1
            }
        return .success(
            HTTPResponse(
                status: easy.info(CURLINFO_RESPONSE_CODE),
                headers: headers,
                body: body,
                httpVersion: version,
                isBodyTruncated: isBodyOverLimit
            )
        )
    }
}
