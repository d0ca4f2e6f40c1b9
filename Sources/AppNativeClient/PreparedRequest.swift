import AppNativeHTTP

/// A request that passed every check, reduced to the values the engine configures a transfer
/// with. Built on the caller's task, so a refused request never reaches the worker thread.
struct PreparedRequest: Sendable {
    var url: String
    var target: OutboundTarget
    var method: String
    /// `nil`: send no content. Otherwise sent with `Content-Length`, even when empty.
    var body: [UInt8]?
    /// `HEAD`: ask for headers only.
    var isHead: Bool
    /// Whether curl must be told the method: it sends `GET` without a body and `POST` with one.
    var needsCustomMethod: Bool
    /// Header lines in curl's syntax: `Name: value`, `Name;` for an empty value, `Name:` to
    /// suppress a header curl would add by itself.
    var headerLines: [String]
    var timeoutMilliseconds: Int
    var connectTimeoutMilliseconds: Int
    var maxResponseBytes: Int
    var maxResponseHeaderBytes: Int
    var truncatesLargeResponses: Bool
    var followsRedirects: Bool
    var caFile: String?
    var usesHTTP2PriorKnowledge: Bool
    /// Set by the worker for an h2c transfer that joins an open connection (see `PriorKnowledgeGate`).
    var joinsPriorKnowledgeConnection = false
    var proxyURL: String?
    var userAgent: String

    /// Fields the engine owns: framing (a mismatch with the real body is request smuggling),
    /// routing (`Host` must match the URL and TLS name) and hop-by-hop fields HTTP/2 forbids
    /// (RFC 9113 §8.2.2).
    static let engineOwnedFieldNames: [String] = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive",
        "proxy-connection", "te", "upgrade",
    ]

    /// Methods that carry content; sent with an empty body when none is given.
    static let methodsWithContent: Set<String> = ["POST", "PUT", "PATCH"]

    /// Every URL is checked in full by `URLPolicy`: no decision is remembered across requests.
    init(_ request: HTTPRequest, userAgent: String) throws(ClientError) {
        guard !request.url.utf8.contains(0) else {
            throw ClientError(.invalidURL, reason: "URL contains a NUL byte")
        }
        target = try URLPolicy.outboundTarget(url: request.url, allowsCleartextOnLoopback: request.allowsCleartextOnLoopback)
        url = request.url
        if let proxyURL = request.proxyURL {
            guard !proxyURL.utf8.contains(0) else {
                throw ClientError(.invalidURL, reason: "proxy URL contains a NUL byte")
            }
            try URLPolicy.checkProxy(url: proxyURL)
        }
        proxyURL = request.proxyURL

        guard Self.isToken(request.method) else {
            throw ClientError(.invalidRequest, reason: "method is not a token (RFC 9110 §9.1)")
        }
        method = request.method
        isHead = request.method == "HEAD"
        var body = request.body
        if body == nil, Self.methodsWithContent.contains(request.method) { body = [] }
        if isHead, body != nil {
            throw ClientError(.invalidRequest, reason: "HEAD request cannot carry a body")
        }
        self.body = body
        let curlDefaultMethod = body == nil ? "GET" : "POST"
        needsCustomMethod = !isHead && request.method != curlDefaultMethod

        headerLines = try Self.headerLines(for: request.headers, hasBody: body != nil)

        guard let timeout = Self.milliseconds(request.timeout) else {
            throw ClientError(.invalidRequest, reason: "timeout must be positive")
        }
        guard let connectTimeout = Self.milliseconds(request.connectTimeout) else {
            throw ClientError(.invalidRequest, reason: "connect timeout must be positive")
        }
        timeoutMilliseconds = timeout
        connectTimeoutMilliseconds = min(connectTimeout, timeout)

        guard request.maxResponseBytes >= 0 else {
            throw ClientError(.invalidRequest, reason: "maxResponseBytes must not be negative")
        }
        guard request.maxResponseHeaderBytes > 0 else {
            throw ClientError(.invalidRequest, reason: "maxResponseHeaderBytes must be positive")
        }
        maxResponseBytes = request.maxResponseBytes
        maxResponseHeaderBytes = request.maxResponseHeaderBytes
        truncatesLargeResponses = request.truncatesLargeResponses
        followsRedirects = request.followsRedirects

        if let caFile = request.caFile, caFile.isEmpty || caFile.utf8.contains(0) {
            throw ClientError(.invalidRequest, reason: "caFile must be a non-empty path")
        }
        caFile = request.caFile
        usesHTTP2PriorKnowledge = request.prefersHTTP2PriorKnowledge && target.isCleartext
        self.userAgent = userAgent
    }

    /// The caller's fields in curl's syntax, plus suppressions of the fields curl would add on
    /// its own: `Expect: 100-continue` (a round trip small bodies do not need) and the form
    /// `Content-Type` it assumes for a body.
    static func headerLines(for fields: [HTTPHeaderField], hasBody: Bool) throws(ClientError) -> [String] {
        var lines: [String] = []
        var hasExpect = false
        var hasContentType = false
        for (index, field) in fields.enumerated() {
            guard isToken(field.name) else {
                // An invalid name is not echoed: it may be a value pasted in the wrong place.
                throw ClientError(.invalidRequest, reason: "header field #\(index) name is not a token (RFC 9110 §5.1)")
            }
            // Compared in place, ASCII case folded: no lower-cased copy per field (APNs sends six
            // or seven per push).
            guard !engineOwnedFieldNames.contains(where: { HTTPHeaders.nameEquals(field.name, $0) }) else {
                throw ClientError(.invalidRequest, reason: "header field \(field.name) is set by the client itself")
            }
            guard isFieldValue(field.value) else {
                throw ClientError(
                    .invalidRequest,
                    reason: "header field \(field.name) value contains a control character (RFC 9110 §5.5)"
                )
            }
            hasExpect = hasExpect || HTTPHeaders.nameEquals(field.name, "expect")
            hasContentType = hasContentType || HTTPHeaders.nameEquals(field.name, "content-type")
            var line = field.name
            if field.value.isEmpty {
                line.append(";")
            } else {
                line.reserveCapacity(field.name.utf8.count + 2 + field.value.utf8.count)
                line.append(": ")
                line.append(field.value)
            }
            lines.append(line)
        }
        if !hasExpect { lines.append("Expect:") }
        if hasBody, !hasContentType { lines.append("Content-Type:") }
        return lines
    }

    /// `token = 1*tchar` (RFC 9110 §5.6.2):
    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// `field-value = *field-content` (RFC 9110 §5.5): VCHAR, SP, HTAB and obs-text; CR, LF,
    /// NUL and the other controls are refused, so a value can never start a new header line.
    static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in byte == 0x09 || (byte >= 0x20 && byte != 0x7f) }
    }

    /// Whole milliseconds, rounded up so a sub-millisecond limit is not curl's 0 ("no limit"),
    /// capped at 2^31-1 ms (about 24 days). `nil` for a duration that is not positive.
    static func milliseconds(_ duration: Duration) -> Int? {
        guard duration > .zero else { return nil }
        let cap = Int(Int32.max)
        let parts = duration.components
        guard parts.seconds < Int64(cap / 1000) else { return cap }
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let fraction = (parts.attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond
        return min(Int(parts.seconds * 1000 + fraction), cap)
    }
}
