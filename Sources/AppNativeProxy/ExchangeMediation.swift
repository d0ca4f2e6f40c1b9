public import AppNativeHTTP

/// How an exchange the gateway serves itself (a native route) differs from a plain relay: the
/// request body passes through a filter that validates (and may re-encode) it before the upstream
/// sees any of it, and the upstream's answer is collected and reshaped before the client sees it.
///
/// Both halves still run on the proxy's pool, timers and error mapping, so a native route keeps
/// the relay's backpressure, timeouts and 502/504 answers.
public struct ExchangeMediation {
    /// Filters the client's body; `nil` relays it unchanged.
    public var requestBody: (any RequestBodyFilter)?
    /// Reshapes the upstream's response; `nil` relays it unchanged.
    public var response: (any ResponseMediator)?
    /// Replaces the request target sent upstream (a per-route URL's path and query).
    public var upstreamTarget: String?

    public init(requestBody: (any RequestBodyFilter)? = nil, response: (any ResponseMediator)? = nil, upstreamTarget: String? = nil) {
        self.requestBody = requestBody
        self.response = response
        self.upstreamTarget = upstreamTarget
    }
}

/// Validates a request body while it streams in. The upstream is contacted only once the filter
/// has released bytes, so a body rejected early never reaches it; when everything is released at
/// `finish()` the upstream request carries a `Content-Length`, otherwise it is sent chunked.
public protocol RequestBodyFilter: AnyObject {
    /// `Content-Type` for the upstream request when the filter re-encodes the body.
    var upstreamContentType: String? { get }
    /// Takes the next piece of the client's body; returns the bytes the upstream may see now.
    func consume(_ chunk: ArraySlice<UInt8>) throws(CompleteResponse) -> [UInt8]
    /// The client's body is complete; returns the remaining bytes for the upstream.
    func finish() throws(CompleteResponse) -> [UInt8]
}

/// Turns the upstream's complete response into the client's.
public protocol ResponseMediator: AnyObject {
    /// Larger upstream bodies are refused with 502: a mediated response is held in memory.
    var maxUpstreamBodyBytes: Int { get }
    func answer(status: Int, headers: HTTPHeaders, body: [UInt8]) -> CompleteResponse
}

@available(*, unavailable, message: "loop-owned: holds the route's filter and mediator")
extension ExchangeMediation: Sendable {}
