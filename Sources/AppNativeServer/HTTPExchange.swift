public import AppNativeHTTP
import AppNativeCore

/// One request and its response on a server connection. Loop-owned: every call happens on the
/// connection's event loop.
///
/// The request body is delivered only after `readBody()` (so a handler that answers early, like
/// a 401, never makes the client send it, and `Expect: 100-continue` is honoured), and can be
/// paused for backpressure. The response is streamed: `sendHead`, any number of `sendBody`, then
/// `finish`; `isWritable` and `onWritable` carry the client's backpressure to the producer.
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

    /// Called with each piece of the request body (valid only during the call).
    public var onBodyChunk: ((UnsafeRawBufferPointer) -> Void)?
    /// Called once the request body is complete, with its trailers.
    public var onBodyEnd: ((HTTPHeaders?) -> Void)?
    /// Called when queued response bytes drained below the low watermark.
    public var onWritable: (() -> Void)?
    /// Called if the exchange dies before `finish` (client gone, timeout, framing error).
    public var onAbort: (() -> Void)?
    /// Added to whatever response head is sent (the session cookie of a token-authenticated
    /// request reaches every kind of response, including 204, redirects and 101).
    public var extraResponseHeaders = HTTPHeaders()
    /// Facts for the access log that later layers add (object id, auth outcome). Never secrets.
    public var logFields = LogFields()

    weak var connection: ServerConnection?
    private(set) var isBodyRequested = false
    private(set) var isBodyPaused = false
    private(set) var isRequestComplete = false
    private(set) var responseState = ResponseState.notStarted
    var responseFraming = ResponseFraming.none
    private(set) var isAbortedState = false
    /// Status sent, for the access log.
    public private(set) var responseStatus = 0
    /// Response body bytes sent, for the access log.
    public private(set) var responseBodyBytes = 0

    enum ResponseState { case notStarted, streaming, finished }

    enum ResponseFraming {
        case none
        case fixed(remaining: Int)
        case chunked
        case untilClose
    }

    init(request: HTTPRequestHead, framing: HTTPBodyFraming, peer: SocketAddress?, isSecure: Bool,
         loop: EventLoop, connection: ServerConnection) {
        self.request = request
        self.framing = framing
        self.peer = peer
        self.isSecure = isSecure
        self.loop = loop
        self.connection = connection
        startedAt = loop.nowNanoseconds
        if case .none = framing { isRequestComplete = true }
        if case .contentLength(0) = framing { isRequestComplete = true }
    }

    /// Whether the request carries a body at all.
    public var hasRequestBody: Bool {
        switch framing {
        case .none, .contentLength(0): false
        default: true
        }
    }

    /// Starts delivering the request body (sends `100 Continue` when the client waits for it).
    public func readBody() {
        guard !isBodyRequested else { return }
        isBodyRequested = true
        connection?.bodyRequested(by: self)
    }

    /// Stops reading the request body until `resumeBody()` (upstream backpressure).
    public func pauseBody() { isBodyPaused = true }

    public func resumeBody() {
        guard isBodyPaused else { return }
        isBodyPaused = false
        connection?.bodyResumed(by: self)
    }

    /// Whether more response bytes may be queued now.
    public var isWritable: Bool { connection?.isBelowHighWatermark ?? false }

    /// Whether the client connection is gone (or the exchange was aborted).
    public var isAborted: Bool { isAbortedState }

    /// Sends the response head. Framing follows from it: `Content-Length` → fixed; otherwise
    /// chunked for HTTP/1.1 clients and close-delimited for HTTP/1.0; none for HEAD, 1xx, 204, 304.
    /// A 1xx head (other than 101) can be followed by the final head.
    public func sendHead(_ head: HTTPResponseHead) {
        guard !isAbortedState, responseState == .notStarted, let connection else { return }
        var head = head
        if (100..<200).contains(head.status) && head.status != 101 {
            sendInformational(head)
            return
        }
        connection.beginResponse()
        responseStatus = head.status
        responseState = .streaming
        head.headers.append(contentsOf: extraResponseHeaders)
        let hasNoBody = request.method == "HEAD" || head.status == 204 || head.status == 304 || head.status == 101
        if hasNoBody {
            responseFraming = .none
            if request.method != "HEAD" && head.status != 101 { head.headers.remove("Content-Length") }
        } else if let length = head.headers.firstContentLength {
            head.headers.remove("Transfer-Encoding")
            responseFraming = .fixed(remaining: length)
        } else if request.version == .http1_1 || request.version.minor >= 1 {
            head.headers.remove("Content-Length")
            head.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            responseFraming = .chunked
        } else {
            responseFraming = .untilClose
            connection.closeAfterResponse = true
        }
        connection.prepareConnectionHeader(&head, exchange: self)
        connection.writeHead(head)
    }

    /// Sends an interim (1xx) response before the final one. Dropped for HTTP/1.0 clients, which
    /// do not expect them (RFC 9110 §15.2), and once the final head was sent.
    public func sendInformational(_ head: HTTPResponseHead) {
        guard !isAbortedState, responseState == .notStarted, let connection else { return }
        guard (100..<200).contains(head.status), head.status != 101, request.version.hasHTTP11Semantics else { return }
        connection.writeHead(head)
    }

    /// Takes back a response head that has not reached the socket yet (the upstream failed right
    /// after it), so that a complete error answer can replace it.
    /// - Returns: whether the head was taken back; false once it was sent or body bytes followed.
    public func retractResponse() -> Bool {
        // Only a head: once body bytes were relayed the answer was under way, and a client must
        // see it cut (a closed connection), not replaced.
        guard !isAbortedState, responseState == .streaming, responseBodyBytes == 0, let connection,
            connection.retractResponse()
        else { return false }
        responseState = .notStarted
        responseStatus = 0
        responseBodyBytes = 0
        responseFraming = .none
        return true
    }

    /// Whether the response went out whole: finished and not cut short.
    public var isResponseComplete: Bool { responseState == .finished && !isAbortedState }

    /// Sends a piece of the response body.
    public func sendBody(_ bytes: UnsafeRawBufferPointer) {
        guard !isAbortedState, responseState == .streaming, !bytes.isEmpty, let connection else { return }
        switch responseFraming {
        case .none:
            return
        case .fixed(let remaining):
            let count = min(remaining, bytes.count)
            responseFraming = .fixed(remaining: remaining - count)
            responseBodyBytes += count
            connection.write(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
        case .chunked:
            responseBodyBytes += bytes.count
            connection.writeChunk(bytes)
        case .untilClose:
            responseBodyBytes += bytes.count
            connection.write(bytes)
        }
    }

    public func sendBody(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { sendBody($0) }
    }

    /// Ends the response. A fixed-length response that is short is closed, never padded.
    public func finish(trailers: HTTPHeaders? = nil) {
        guard !isAbortedState, responseState == .streaming, let connection else { return }
        responseState = .finished
        switch responseFraming {
        case .chunked: connection.writeLastChunk(trailers: trailers)
        case .fixed(let remaining) where remaining > 0: connection.closeAfterResponse = true
        case .untilClose: connection.closeAfterResponse = true
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
    /// Bytes the client sends go to `onData`; `send` writes to the client; `close` ends it.
    public func startTunnel(onData: @escaping (UnsafeRawBufferPointer) -> Void, onClose: @escaping () -> Void) -> Tunnel? {
        guard let connection, responseStatus == 101 else { return nil }
        responseState = .finished
        return connection.startTunnel(for: self, onData: onData, onClose: onClose)
    }

    /// Closes the client connection abruptly (the upstream failed mid-response).
    public func abortConnection() {
        connection?.close()
    }

    func bodyChunk(_ bytes: UnsafeRawBufferPointer) { onBodyChunk?(bytes) }

    func bodyEnded(_ trailers: HTTPHeaders?) {
        isRequestComplete = true
        onBodyEnd?(trailers)
    }

    func abort() {
        guard !isAbortedState, responseState != .finished else { return }
        isAbortedState = true
        let callback = onAbort
        clearCallbacks()
        callback?()
    }

    func clearCallbacks() {
        onBodyChunk = nil
        onBodyEnd = nil
        onWritable = nil
        onAbort = nil
    }

    /// Whether this exchange still owns its connection: the response is streaming, or it became a
    /// tunnel (101) that is still open.
    public var holdsConnection: Bool {
        guard connection != nil, !isAbortedState else { return false }
        return responseState != .finished || responseStatus == 101
    }

    /// Whether the response head was sent (an error can then only close the connection).
    public var hasResponseStartedPublic: Bool { responseState != .notStarted }

    var isResponseFinished: Bool { responseState == .finished }
    var hasResponseStarted: Bool { responseState != .notStarted }
}

/// A raw bidirectional byte stream to the client after a protocol switch.
public final class Tunnel {
    weak var connection: ServerConnection?

    init(connection: ServerConnection) { self.connection = connection }

    public func send(_ bytes: UnsafeRawBufferPointer) { connection?.write(bytes) }
    public var isWritable: Bool { connection?.isBelowHighWatermark ?? false }
    /// Stops reading from the client until `resume()` (the other side is not draining).
    public func pause() { connection?.isTunnelPaused = true }
    public func resume() { connection?.resumeTunnel() }
    public func close() { connection?.closeAfterFlush() }
    public var onWritable: (() -> Void)? {
        get { connection?.tunnelWritable }
        set { connection?.tunnelWritable = newValue }
    }
}

@available(*, unavailable, message: "loop-owned: use it only on its event loop")
extension HTTPExchange: Sendable {}

@available(*, unavailable, message: "loop-owned: use it only on its event loop")
extension Tunnel: Sendable {}
