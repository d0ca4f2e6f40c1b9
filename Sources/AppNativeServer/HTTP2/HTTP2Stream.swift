import AppNativeHTTP

/// One stream of an HTTP/2 connection as the carrier of its exchange: the exchange writes its
/// response here and reads its request body from here exactly as it does on an HTTP/1.1
/// connection. Loop-owned; held by its connection until nghttp2 closes the stream.
final class HTTP2Stream: ExchangeCarrier {
    let id: Int32
    private weak var owner: HTTP2Connection?
    /// Held while the exchange runs; released when it ends.
    private(set) var exchange: HTTPExchange?

    /// The response, as the exchange produces it.
    private enum Response {
        case notStarted
        /// The head waits for the next flush (so it can still be taken back), with the body
        /// bytes written behind it.
        case headQueued(HTTPResponseHead, body: [UInt8])
        /// The head went to the session; body bytes go straight to the stream's outbound buffer.
        case submitted
    }

    private var response = Response.notStarted
    /// The exchange called `finish`; trailers from `writeLastChunk`.
    private var finish = Finish.pending

    private enum Finish: Equatable {
        case pending
        case finished(trailers: HTTPHeaders?)
        /// The response cannot end cleanly (short body): the stream is reset.
        case cut
    }

    /// Request body bytes received while the exchange was not reading, and whether the body ended.
    private var heldBody: [[UInt8]] = []
    private var heldEnd = HeldEnd.none

    private enum HeldEnd {
        case none
        case ended(trailers: HTTPHeaders?)
    }

    init(id: Int32, owner: HTTP2Connection) {
        self.id = id
        self.owner = owner
    }

    func attach(_ exchange: HTTPExchange) { self.exchange = exchange }

    // MARK: Request body

    func bodyRequested(by exchange: HTTPExchange) { owner?.deliverLater(self) }

    func bodyResumed(by exchange: HTTPExchange) { owner?.deliverLater(self) }

    /// Body bytes from the client: delivered now if the exchange reads, else held (the window
    /// is only reopened for bytes delivered, so what is held stays within it).
    func received(_ bytes: [UInt8]) {
        guard let exchange else {
            owner?.consume(stream: id, count: bytes.count)
            return
        }
        if exchange.requestBody == .reading && heldBody.isEmpty {
            owner?.consume(stream: id, count: bytes.count)
            exchange.bodyChunk(bytes[...])
        } else {
            heldBody.append(bytes)
        }
    }

    func receivedEnd(_ trailers: HTTPHeaders?) {
        heldEnd = .ended(trailers: trailers)
        deliverHeld()
    }

    /// Hands held body bytes (and the end) to an exchange that reads.
    func deliverHeld() {
        guard let exchange else { return }
        while exchange.requestBody == .reading, !heldBody.isEmpty {
            let bytes = heldBody.removeFirst()
            owner?.consume(stream: id, count: bytes.count)
            exchange.bodyChunk(bytes[...])
            guard self.exchange != nil else { return }
        }
        guard heldBody.isEmpty, case .ended(let trailers) = heldEnd, exchange.requestBody == .reading else { return }
        heldEnd = .none
        exchange.bodyEnded(trailers)
        if case .finished = finish { end() }
    }

    /// The request body broke a limit: the exchange ends; the client gets `status` if nothing
    /// of the response left yet, else a reset.
    func refuseBody(status: Int) {
        guard let exchange else { return }
        let answerable: Bool
        switch response {
        case .notStarted, .headQueued: answerable = true
        case .submitted: answerable = false
        }
        response = .notStarted
        exchange.abort()
        end()
        if answerable {
            owner?.answer(stream: id, status: status)
        } else {
            owner?.reset(stream: id, code: HTTP2Session.internalError)
        }
    }

    // MARK: Response

    var isBelowHighWatermark: Bool {
        guard let owner else { return false }
        return owner.hasRoom(for: id, queued: queuedBodyCount)
    }

    private var queuedBodyCount: Int {
        if case .headQueued(_, let body) = response { return body.count }
        return 0
    }

    func beginResponse() {}

    func writeHead(_ head: HTTPResponseHead) {
        // Interim responses are not relayed over HTTP/2 (the final one follows).
        guard head.status >= 200, case .notStarted = response else { return }
        response = .headQueued(head, body: [])
        owner?.submitLater(self)
    }

    func retractResponse() -> Bool {
        guard case .headQueued = response else { return false }
        response = .notStarted
        return true
    }

    func write(_ bytes: ArraySlice<UInt8>) {
        switch response {
        case .notStarted:
            return
        case .headQueued(let head, var body):
            response = .notStarted
            body.append(contentsOf: bytes)
            response = .headQueued(head, body: body)
        case .submitted:
            owner?.appendData(stream: id, bytes)
        }
        if !isBelowHighWatermark { owner?.waitForRoom(self) }
    }

    func writeChunk(_ bytes: ArraySlice<UInt8>) { write(bytes) }

    func writeLastChunk(trailers: HTTPHeaders?) {
        if finish == .pending { finish = .finished(trailers: trailers) }
    }

    func closeAfterResponse() { finish = .cut }

    func prepareConnectionHeader(_ head: inout HTTPResponseHead, exchange: HTTPExchange) {}

    func exchangeFinished(_ exchange: HTTPExchange) {
        guard exchange === self.exchange else { return }
        switch finish {
        case .cut:
            owner?.reset(stream: id, code: HTTP2Session.internalError)
            end()
            return
        case .pending:
            finish = .finished(trailers: nil)
        case .finished:
            break
        }
        if case .submitted = response, case .finished(let trailers) = finish {
            owner?.endData(stream: id, trailers: trailers)
        }
        switch exchange.requestBody {
        case .complete:
            end()
        case .unread:
            // The body is not wanted: what still arrives is dropped and its window given back,
            // so the client finishes its upload and sees the answer. (RST_STREAM NO_ERROR, which
            // RFC 9113 §8.1 allows here, makes curl 7.88 drop the answer it already received.)
            end()
        case .reading, .paused:
            // The end of the body completes the exchange, as over HTTP/1.1.
            break
        }
    }

    /// Submits a queued head (called by the connection before it serialises frames).
    func submitQueuedHead() {
        guard case .headQueued(let head, let body) = response, let owner else { return }
        response = .submitted
        let endsWithHead: Bool
        if case .finished(let trailers) = finish, body.isEmpty, trailers == nil || trailers?.isEmpty == true {
            endsWithHead = true
        } else {
            endsWithHead = false
        }
        guard owner.submitResponse(stream: id, head: head, hasBody: !endsWithHead) else {
            owner.reset(stream: id, code: HTTP2Session.internalError)
            return
        }
        guard !endsWithHead else { return }
        if !body.isEmpty { owner.appendData(stream: id, body[...]) }
        if case .finished(let trailers) = finish { owner.endData(stream: id, trailers: trailers) }
    }

    func startTunnel(for exchange: HTTPExchange, delegate: any TunnelDelegate) -> Tunnel? { nil }

    func abandon(_ exchange: HTTPExchange) {
        guard exchange === self.exchange else { return }
        owner?.reset(stream: id, code: HTTP2Session.internalError)
        exchange.abort()
        end()
    }

    // MARK: Ending

    /// The exchange is over for the stream (the access-log moment); the stream itself lives
    /// until nghttp2 closes it.
    private func end() {
        guard let exchange else { return }
        self.exchange = nil
        exchange.ended()
        owner?.exchangeEnded(exchange, on: self)
        // Held body bytes nobody will read go back to the connection's window.
        let held = heldBody.reduce(0) { $0 + $1.count }
        heldBody = []
        owner?.consume(stream: id, count: held)
    }

    /// nghttp2 closed the stream (complete, or reset by either side).
    func closed() {
        guard let exchange else { return }
        exchange.abort()
        end()
    }
}

@available(*, unavailable, message: "loop-owned")
extension HTTP2Stream: Sendable {}
