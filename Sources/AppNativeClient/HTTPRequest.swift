/// An outbound HTTP request, checked against the outbound policy before any byte is sent.
///
/// Defaults are the safe ones: `https` only, redirects returned rather than followed, a
/// whole-request timeout, a response-size cap that fails rather than truncates, no proxy.
public struct HTTPRequest: Sendable {
    /// The request method, a token (RFC 9110 §9.1). `HEAD` asks for headers only.
    public var method: String = "GET"
    /// An absolute `https` URL (or `http` on a loopback host, see `allowsCleartextOnLoopback`).
    public var url: String
    /// Fields to send, in order. Names must be tokens and values free of CR, LF and NUL
    /// (RFC 9110 §5.1, §5.5). The engine owns framing and routing fields, so `Host`,
    /// `Content-Length`, `Transfer-Encoding`, `Connection`, `Keep-Alive`, `Proxy-Connection`,
    /// `TE` and `Upgrade` are refused. An empty value sends the field with an empty value.
    public var headers: [HTTPHeaderField] = []
    /// The request content, sent with `Content-Length`. `nil` sends none; `POST`, `PUT` and
    /// `PATCH` without a body send an empty one. No `Content-Type` is added on the caller's behalf.
    public var body: [UInt8]?
    /// The limit on the whole exchange, connect and TLS included. Must be positive.
    public var timeout: Duration
    /// The limit on establishing the connection (TCP and TLS); the whole-request `timeout` still applies.
    public var connectTimeout: Duration = .seconds(5)
    /// The largest response body accepted. A larger one fails the request with
    /// `.responseTooLarge`, unless `truncatesLargeResponses` is set.
    public var maxResponseBytes: Int
    /// When true, a body larger than `maxResponseBytes` is cut to that size and returned with
    /// `HTTPResponse.isBodyTruncated` set, instead of failing the request.
    public var truncatesLargeResponses: Bool = false
    /// The largest total size of the response's header lines (status line included).
    public var maxResponseHeaderBytes: Int = 64 * 1024
    /// When false (the default) a 3xx is returned as a response. When true, up to five redirects
    /// are followed, to `https` targets only, whatever the original scheme.
    public var followsRedirects: Bool = false
    /// A PEM bundle to trust instead of the system store (test CAs, private PKI).
    public var caFile: String?
    /// Allows `http://` when the URL's host is a loopback address (127.0.0.0/8, ::1, localhost).
    /// `http://` to any other host fails with `.insecureScheme` whatever this says.
    public var allowsCleartextOnLoopback: Bool = false
    /// Speaks HTTP/2 without upgrade (h2c, RFC 9113 §3.3) on cleartext loopback URLs, for local
    /// fakes. Ignored for `https`, where HTTP/2 is negotiated with ALPN whenever the server offers it.
    public var prefersHTTP2PriorKnowledge: Bool = false
    /// An explicit `http://` or `https://` proxy. `nil` (the default) means a direct connection:
    /// `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` from the environment are never used.
    public var proxyURL: String?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - url: an absolute URL; checked by `URLPolicy` when the request is sent.
    ///   - method: the request method.
    ///   - headers: fields to send.
    ///   - body: the content to send, if any.
    ///   - timeout: the whole-request limit (default 10 s, the JWKS download budget).
    ///   - maxResponseBytes: the body cap (default 1 MiB).
    public init(
        url: String,
        method: String = "GET",
        headers: [HTTPHeaderField] = [],
        body: [UInt8]? = nil,
        timeout: Duration = .seconds(10),
        maxResponseBytes: Int = 1 << 20
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }
}

extension HTTPRequest {
    /// A request to a JSON endpoint of an identity service (a key set, a discovery document, a
    /// token endpoint): `Accept: application/json` after any `headers` given, redirects returned
    /// rather than followed, plain `http` only to a loopback address, `caFile` trusted.
    public static func identityServiceJSON(
        url: String,
        method: String = "GET",
        headers: [HTTPHeaderField] = [],
        body: [UInt8]? = nil,
        timeout: Duration,
        connectTimeout: Duration,
        maxResponseBytes: Int,
        caFile: String?
    ) -> HTTPRequest {
        var request = HTTPRequest(
            url: url, method: method, headers: headers + [HTTPHeaderField(name: "Accept", value: "application/json")], body: body,
            timeout: timeout, maxResponseBytes: maxResponseBytes)
        request.connectTimeout = connectTimeout
        request.caFile = caFile
        request.allowsCleartextOnLoopback = true
        return request
    }
}
