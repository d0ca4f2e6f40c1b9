public import AppNativeHTTP
import AppNativeCore

/// One request and its response on a server connection. Loop-owned: every call happens on the
/// connection's event loop.
///
/// The request body is delivered only after `readBody()` (so a handler that answers early, like
/// a 401, never makes the client send it, and `Expect: 100-continue` is honoured), and can be
/// paused for backpressure. The response is streamed: `sendHead`, any number of `sendBody`, then
/// `finish`; `isWritable` and the delegate's `exchangeDidBecomeWritable` carry the client's
/// backpressure to the producer.
public final class HTTPExchange {
    // Loop-owned (see the type's documentation): deliberately not Sendable.
    public let request: HTTPRequestHead
    public let framing: HTTPBodyFraming
    public let peer: SocketAddress?
    public let loop: EventLoop
    /// Whether the connection is TLS (for `X-Forwarded-Proto`).
    public let isSecure: Bool
    /// Monotonic nanoseconds when the head was complete.
    public let startedAt: UInt64

    /// Hears the request body, the client's backpressure and an abort. Set by the exchange's
    /// owner before `readBody()`; held until the exchange ends, then released.
    public var delegate: (any HTTPExchangeDelegate)?
    /// Added to whatever response head is sent (the session cookie of a token-authenticated
    /// request reaches every kind of response, including 204, redirects and 101).
    public var extraResponseHeaders = HTTPHeaders()
    /// Facts for the access log that later layers add (object id, auth outcome). Never secrets.
    public var logFields = LogFields()

    /// The HTTP/1.1 connection or HTTP/2 stream that carries the exchange.
    weak var connection: (any ExchangeCarrier)?
    /// Where the request body is; moved only by `readBody`, `pauseBody`, `resumeBody` and the
    /// connection's `bodyEnded`.
    private(set) var requestBody: RequestBodyState
    /// Where the response is; moved only by `sendHead`, `sendBody` (a fixed length's remainder),
    /// `retractResponse`, `finish`, `startTunnel` and `abort`.
    private(set) var response = ResponseState.notStarted
    /// Status sent, for the access log.
    public private(set) var responseStatus = 0
    /// Response body bytes sent, for the access log.
    public private(set) var responseBodyBytes = 0

    /// The request body, as the connection reads it.
    enum RequestBodyState: Equatable {
        /// The handler has not asked for it: the connection does not read it.
        case unread
        /// Delivered to the delegate as it arrives.
        case reading
        /// Asked for, but held back (the consumer's own backpressure).
        case paused
        /// Every byte (and the trailers) delivered, or there was no body.
        case complete
    }

    /// The response, as the handler produces it.
    enum ResponseState {
        case notStarted
        /// The final head is queued; body bytes follow in its framing.
        case streaming(ResponseFraming)
        /// The response ended (or the connection became a tunnel).
        case finished
        /// The exchange died before `finish` (client gone, timeout, framing error).
        case aborted(afterHead: Bool)
    }

    enum ResponseFraming {
        case none
        case fixed(remaining: Int)
        case chunked
        case untilClose
    }

    init(request: HTTPRequestHead, framing: HTTPBodyFraming, peer: SocketAddress?, isSecure: Bool,
         loop: EventLoop, connection: any ExchangeCarrier) {
        self.request = request
        self.framing = framing
        self.peer = peer
        self.isSecure = isSecure
        self.loop = loop
        self.connection = connection
        startedAt = loop.nowNanoseconds
        switch framing {
        case .none, .contentLength(0): requestBody = .complete
        default: requestBody = .unread
        }
    }

    /// Whether the request carries a body at all.
    public var hasRequestBody: Bool {
        switch framing {
        case .none, .contentLength(0): false
        default: true
        }
    }

    /// Starts delivering the request body to `delegate` (sends `100 Continue` when the client
    /// waits for it).
    public func readBody() {
        guard requestBody == .unread else { return }
        requestBody = .reading
        connection?.bodyRequested(by: self)
    }

    /// Starts delivering the request body to `onChunk` and `onEnd` (for consumers that keep no
    /// state beyond the closures; they become the exchange's delegate).
    public func readBody(onChunk: @escaping (ArraySlice<UInt8>) -> Void, onEnd: @escaping (HTTPHeaders?) -> Void) {
        delegate = BodyCallbacks(onChunk: onChunk, onEnd: onEnd)
        readBody()
    }

    /// Stops reading the request body until `resumeBody()` (upstream backpressure).
    public func pauseBody() {
        if requestBody == .reading { requestBody = .paused }
    }

    public func resumeBody() {
        guard requestBody == .paused else { return }
        requestBody = .reading
        connection?.bodyResumed(by: self)
    }

    /// Whether more response bytes may be queued now.
    public var isWritable: Bool { connection?.isBelowHighWatermark ?? false }

    /// Whether the client connection is gone (or the exchange was aborted).
    public var isAborted: Bool {
        if case .aborted = response { return true }
        return false
    }

    /// Sends the response head. Framing follows from it: `Content-Length` → fixed; otherwise
    /// chunked for HTTP/1.1 clients (DATA frames up to END_STREAM for HTTP/2) and close-delimited
    /// for HTTP/1.0; none for HEAD, 1xx, 204, 304.
    /// A 1xx head (other than 101) can be followed by the final head.
    public func sendHead(_ head: HTTPResponseHead) {
        guard case .notStarted = response, let connection else { return }
        var head = head
        if (100..<200).contains(head.status) && head.status != 101 {
            sendInformational(head)
            return
        }
        connection.beginResponse()
        responseStatus = head.status
        head.headers.append(contentsOf: extraResponseHeaders)
        let responseFraming: ResponseFraming
        let hasNoBody = request.method == "HEAD" || head.status == 204 || head.status == 304 || head.status == 101
        if hasNoBody {
            responseFraming = .none
            if request.method != "HEAD" && head.status != 101 { head.headers.remove("Content-Length") }
        } else if let length = head.headers.firstContentLength {
            head.headers.remove("Transfer-Encoding")
            responseFraming = .fixed(remaining: length)
        } else if request.version.hasHTTP11Semantics {
            head.headers.remove("Content-Length")
            head.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            responseFraming = .chunked
        } else {
            responseFraming = .untilClose
            connection.closeAfterResponse()
        }
        response = .streaming(responseFraming)
        connection.prepareConnectionHeader(&head, exchange: self)
        connection.writeHead(head)
    }

    /// Sends an interim (1xx) response before the final one. Dropped for HTTP/1.0 clients, which
    /// do not expect them (RFC 9110 §15.2), and once the final head was sent.
    public func sendInformational(_ head: HTTPResponseHead) {
        guard case .notStarted = response, let connection else { return }
        guard (100..<200).contains(head.status), head.status != 101, request.version.hasHTTP11Semantics else { return }
        connection.writeHead(head)
    }

    /// Takes back a response head that has not reached the socket yet (the upstream failed right
    /// after it), so that a complete error answer can replace it.
    /// - Returns: whether the head was taken back; false once it was sent or body bytes followed.
    public func retractResponse() -> Bool {
        // Only a head: once body bytes were relayed the answer was under way, and a client must
        // see it cut (a closed connection), not replaced.
        guard case .streaming = response, responseBodyBytes == 0, let connection, connection.retractResponse()
        else { return false }
        response = .notStarted
        responseStatus = 0
        responseBodyBytes = 0
        return true
    }

    /// Whether the response went out whole: finished and not cut short.
    public var isResponseComplete: Bool {
        if case .finished = response { return true }
        return false
    }

    /// Sends a piece of the response body.
    public func sendBody(_ bytes: ArraySlice<UInt8>) {
        guard case .streaming(let framing) = response, !bytes.isEmpty, let connection else { return }
        switch framing {
        case .none:
            return
        case .fixed(let remaining):
            let count = min(remaining, bytes.count)
            response = .streaming(.fixed(remaining: remaining - count))
            responseBodyBytes += count
            connection.write(bytes.prefix(count))
        case .chunked:
            responseBodyBytes += bytes.count
            connection.writeChunk(bytes)
        case .untilClose:
            responseBodyBytes += bytes.count
            connection.write(bytes)
        }
    }

    public func sendBody(_ bytes: [UInt8]) {
        sendBody(bytes[...])
    }

    /// Ends the response. A fixed-length response that is short is closed, never padded.
    public func finish(trailers: HTTPHeaders? = nil) {
        guard case .streaming(let framing) = response, let connection else { return }
        response = .finished
        switch framing {
        case .chunked: connection.writeLastChunk(trailers: trailers)
        case .fixed(let remaining) where remaining > 0: connection.closeAfterResponse()
        case .untilClose: connection.closeAfterResponse()
        default: break
        }
        connection.exchangeFinished(self)
    }

    /// Answers with a complete response in one call.
    public func respond(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        var head = HTTPResponseHead(status: status, reason: HTTPStatus.reason(status), headers: headers)
        head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        sendHead(head)
        sendBody(body)
        finish()
    }

    /// Answers with `{"detail": message}` (the contract's error shape).
    public func respondJSONError(status: Int, detail: String, headers: HTTPHeaders = HTTPHeaders()) {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        respond(status: status, headers: headers, body: Array(JSONErrorBody.detail(detail).utf8))
    }

    /// Switches the connection to a raw byte tunnel after a `101` was sent (WebSocket).
    /// Bytes the client sends go to `delegate`; `Tunnel.send` writes to the client.
    public func startTunnel(delegate: any TunnelDelegate) -> Tunnel? {
        guard let connection, responseStatus == 101, case .streaming = response else { return nil }
        response = .finished
        return connection.startTunnel(for: self, delegate: delegate)
    }

    /// Closes the client connection abruptly (the upstream failed mid-response).
    public func abortConnection() {
        connection?.abandon(self)
    }

    func bodyChunk(_ bytes: ArraySlice<UInt8>) { delegate?.exchange(self, didReceiveBody: bytes) }

    func bodyEnded(_ trailers: HTTPHeaders?) {
        requestBody = .complete
        delegate?.exchange(self, didEndBodyWith: trailers)
    }

    func becameWritable() { delegate?.exchangeDidBecomeWritable(self) }

    func abort() {
        switch response {
        case .notStarted: response = .aborted(afterHead: false)
        case .streaming: response = .aborted(afterHead: true)
        case .finished, .aborted: return
        }
        let delegate = self.delegate
        self.delegate = nil
        delegate?.exchangeDidAbort(self)
    }

    /// The exchange is over for the connection: its delegate is released.
    func ended() {
        delegate = nil
    }

    /// Whether the response head was sent (an error can then only close the connection).
    public var hasResponseStartedPublic: Bool { hasResponseStarted }

    var isResponseFinished: Bool {
        if case .finished = response { return true }
        return false
    }

    var hasResponseStarted: Bool {
        switch response {
        case .notStarted, .aborted(afterHead: false): false
        case .streaming, .finished, .aborted(afterHead: true): true
        }
    }
}

/// What an exchange's owner hears from it, on the exchange's loop. Every method has a default
/// that does nothing.
public protocol HTTPExchangeDelegate: AnyObject {
    /// A piece of the request body (after `readBody()`).
    func exchange(_ exchange: HTTPExchange, didReceiveBody chunk: ArraySlice<UInt8>)
    /// The request body is complete, with its trailers.
    func exchange(_ exchange: HTTPExchange, didEndBodyWith trailers: HTTPHeaders?)
    /// Queued response bytes drained below the low watermark.
    func exchangeDidBecomeWritable(_ exchange: HTTPExchange)
    /// The exchange died before `finish` (client gone, timeout, framing error). The delegate is
    /// released right after.
    func exchangeDidAbort(_ exchange: HTTPExchange)
}

extension HTTPExchangeDelegate {
    public func exchange(_ exchange: HTTPExchange, didReceiveBody chunk: ArraySlice<UInt8>) {}
    public func exchange(_ exchange: HTTPExchange, didEndBodyWith trailers: HTTPHeaders?) {}
    public func exchangeDidBecomeWritable(_ exchange: HTTPExchange) {}
    public func exchangeDidAbort(_ exchange: HTTPExchange) {}
}

/// The delegate `readBody(onChunk:onEnd:)` installs.
private final class BodyCallbacks: HTTPExchangeDelegate {
    let onChunk: (ArraySlice<UInt8>) -> Void
    let onEnd: (HTTPHeaders?) -> Void

    init(onChunk: @escaping (ArraySlice<UInt8>) -> Void, onEnd: @escaping (HTTPHeaders?) -> Void) {
        self.onChunk = onChunk
        self.onEnd = onEnd
    }

    func exchange(_ exchange: HTTPExchange, didReceiveBody chunk: ArraySlice<UInt8>) { onChunk(chunk) }
    func exchange(_ exchange: HTTPExchange, didEndBodyWith trailers: HTTPHeaders?) { onEnd(trailers) }
}

/// What the owner of a tunnel hears from it, on its loop.
public protocol TunnelDelegate: AnyObject {
    /// Bytes the client sent.
    func tunnel(_ tunnel: Tunnel, received bytes: ArraySlice<UInt8>)
    /// Queued bytes toward the client drained below the low watermark.
    func tunnelDidBecomeWritable(_ tunnel: Tunnel)
    /// The client side closed (or the connection failed); the delegate is released after this.
    func tunnelDidClose(_ tunnel: Tunnel)
}

/// What a tunnel runs over: an HTTP/1.1 connection after a 101, or an HTTP/2 stream after an
/// extended CONNECT's 200 (RFC 8441). Loop-owned.
protocol TunnelCarrier: AnyObject {
    func write(_ bytes: ArraySlice<UInt8>)
    var isBelowHighWatermark: Bool { get }
    func pauseTunnel()
    func resumeTunnel()
    /// Ends the client side once what was sent is out.
    func closeTunnel()
}

extension ServerConnection: TunnelCarrier {
    func closeTunnel() { closeAfterFlush() }
}

/// A raw bidirectional byte stream to the client after a protocol switch.
public final class Tunnel {
    weak var carrier: (any TunnelCarrier)?

    init(carrier: any TunnelCarrier) { self.carrier = carrier }

    convenience init(connection: ServerConnection) { self.init(carrier: connection) }

    public func send(_ bytes: ArraySlice<UInt8>) { carrier?.write(bytes) }
    public func send(_ bytes: [UInt8]) { carrier?.write(bytes[...]) }
    public var isWritable: Bool { carrier?.isBelowHighWatermark ?? false }
    /// Stops reading from the client until `resume()` (the other side is not draining).
    public func pause() { carrier?.pauseTunnel() }
    public func resume() { carrier?.resumeTunnel() }
    public func close() { carrier?.closeTunnel() }
}

@available(*, unavailable, message: "loop-owned: use it only on its event loop")
extension HTTPExchange: Sendable {}

@available(*, unavailable, message: "loop-owned: use it only on its event loop")
extension Tunnel: Sendable {}
