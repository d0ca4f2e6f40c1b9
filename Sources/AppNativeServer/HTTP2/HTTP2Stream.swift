import AppNativeHTTP

/// One stream of an HTTP/2 connection as the carrier of its exchange: the exchange writes its
/// response here and reads its request body from here exactly as it does on an HTTP/1.1
/// connection. Loop-owned; held by its connection until nghttp2 closes the stream.
///
/// A WebSocket over HTTP/2 (RFC 8441) is a stream whose exchange, once the upstream switched
/// protocols, becomes a tunnel: the stream is then the tunnel's carrier, as an HTTP/1.1
/// connection is after its 101, and DATA frames carry the WebSocket frames both ways.
final class HTTP2Stream: ExchangeCarrier, TunnelCarrier {
    let id: Int32
    private weak var owner: HTTP2Connection?
    /// Held while the exchange runs; released when it ends.
    private(set) var exchange: HTTPExchange?
    let kind: Kind

    enum Kind: Equatable {
        case request
        /// An extended CONNECT: the handshake with the upstream the gateway makes for it.
        case webSocket(HTTP2WebSocketHandshake)
    }

    /// The tunnel a WebSocket stream becomes after its 200.
    private var tunnel = TunnelState.none

    private enum TunnelState {
        case none
        case open(Tunnel, any TunnelDelegate, isPaused: Bool)
        /// The gateway's side ended (END_STREAM sent); the delegate still hears the close.
        case closing(Tunnel, any TunnelDelegate)
        case closed
    }

    /// The response, as the exchange produces it.
    private enum Response {
        case notStarted
        /// The head waits for the next flush (so it can still be taken back), with the body
        /// bytes written behind it.
        case headQueued(HTTPResponseHead, body: [UInt8])
        /// The head went to the session; body bytes go straight to the stream's outbound buffer.
        case submitted
        /// The stream answered in the handler's place (an upgrade the upstream did not complete);
        /// what the handler still writes is dropped.
        case replaced
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

    /// What the stream waits for from its client, each with its deadline (made when first
    /// needed): the next request body bytes while the exchange reads (BODY_IDLE_TIMEOUT), and
    /// progress of queued response bytes through the client's window (WRITE_TIMEOUT).
    enum Wait: Equatable {
        case requestBody
        case window
    }

    private var bodyTimer: LoopTimer?
    private var windowTimer: LoopTimer?
    /// Response bytes framed when the write deadline was last armed.
    private var framedAtArming: UInt64 = 0

    /// Request body bytes received while the exchange was not reading, and whether the body ended.
    private var heldBody: [[UInt8]] = []
    private var heldEnd = HeldEnd.none

    private enum HeldEnd {
        case none
        case ended(trailers: HTTPHeaders?)
    }

    init(id: Int32, owner: HTTP2Connection, kind: Kind = .request) {
        self.id = id
        self.owner = owner
        self.kind = kind
    }

    func attach(_ exchange: HTTPExchange) { self.exchange = exchange }

    // MARK: Request body

    func bodyRequested(by exchange: HTTPExchange) {
        // `100 Continue` is the gateway's to send when the handler reads the body, as over HTTP/1.1.
        if case .notStarted = response, !exchange.hasResponseStarted,
            exchange.request.headers.first("Expect")?.lowercased() == "100-continue"
        {
            owner?.submitInformational(stream: id, HTTPResponseHead(status: 100))
        }
        owner?.deliverLater(self)
    }

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
        updateBodyDeadline()
    }

    func receivedEnd(_ trailers: HTTPHeaders?) {
        heldEnd = .ended(trailers: trailers)
        deliverHeld()
        updateBodyDeadline()
    }

    /// Hands held body bytes (and the end) to an exchange that reads, or to the tunnel.
    func deliverHeld() {
        if case .open = tunnel {
            deliverToTunnel()
            return
        }
        guard let exchange else { return }
        defer { updateBodyDeadline() }
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
        case .submitted, .replaced: answerable = false
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
        guard case .notStarted = response else { return }
        var head = head
        switch (kind, head.status) {
        case (_, 100..<200) where head.status != 101:
            // An interim response (103 Early Hints) goes out in its own HEADERS frame, before
            // the final one (RFC 9113 §8.1).
            owner?.submitInformational(stream: id, head)
            return
        case (.webSocket(let handshake), 101):
            // RFC 8441 §5: the upgrade's success is a 200 on the stream.
            guard let answer = handshake.answer(to: head) else {
                replace(status: 502)
                return
            }
            head = answer
        case (.webSocket, 200..<300):
            // A 2xx without the switch would read as an open tunnel to the client.
            replace(status: 502)
            return
        case (.request, 101):
            // No upgrade exists over HTTP/2 except the extended CONNECT.
            replace(status: 502)
            return
        default:
            break
        }
        response = .headQueued(head, body: [])
        owner?.submitLater(self)
    }

    /// Answers in the handler's place with an error of the gateway's own; the handler's
    /// exchange is aborted once its call returns (not inside it), so its upstream is let go.
    private func replace(status: Int) {
        response = .replaced
        owner?.answer(stream: id, status: status)
        exchange?.loop.runAtEndOfIteration { [weak self] in
            guard let self, let exchange = self.exchange else { return }
            exchange.abort()
            self.end()
        }
    }

    func retractResponse() -> Bool {
        guard case .headQueued = response else { return false }
        response = .notStarted
        return true
    }

    func write(_ bytes: ArraySlice<UInt8>) {
        switch response {
        case .notStarted, .replaced:
            return
        case .headQueued(let head, var body):
            response = .notStarted
            body.append(contentsOf: bytes)
            response = .headQueued(head, body: body)
        case .submitted:
            owner?.appendData(stream: id, bytes)
        }
        if !isBelowHighWatermark { owner?.waitForRoom(self) }
        armWriteDeadline()
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

    func startTunnel(for exchange: HTTPExchange, delegate: any TunnelDelegate) -> Tunnel? {
        guard exchange === self.exchange, case .webSocket = kind else { return nil }
        let tunnel = Tunnel(carrier: self)
        switch response {
        case .headQueued, .submitted:
            self.tunnel = .open(tunnel, delegate, isPaused: false)
        case .notStarted, .replaced:
            // The upgrade failed here (answered 502): the delegate hears the tunnel close.
            self.tunnel = .closing(tunnel, delegate)
            exchange.loop.runAtEndOfIteration { [weak self] in self?.tunnelClosed() }
        }
        // The exchange is over (the access-log moment, as for an HTTP/1.1 upgrade); the stream
        // carries on as the tunnel.
        self.exchange = nil
        exchange.ended()
        owner?.exchangeEnded(exchange, on: self)
        // DATA that arrived before the 200 was held within the window: it goes first.
        owner?.deliverLater(self)
        return tunnel
    }

    // MARK: Tunnel

    func pauseTunnel() {
        if case .open(let tunnel, let delegate, isPaused: false) = tunnel { self.tunnel = .open(tunnel, delegate, isPaused: true) }
    }

    func resumeTunnel() {
        guard case .open(let tunnel, let delegate, isPaused: true) = tunnel else { return }
        self.tunnel = .open(tunnel, delegate, isPaused: false)
        owner?.deliverLater(self)
    }

    /// The gateway's side of the tunnel ends: END_STREAM after what was sent (RFC 8441 §4).
    func closeTunnel() {
        guard case .open(let tunnel, let delegate, _) = tunnel else { return }
        self.tunnel = .closing(tunnel, delegate)
        switch response {
        case .headQueued:
            finish = .finished(trailers: nil)
        case .submitted:
            owner?.endData(stream: id, trailers: nil)
        case .notStarted, .replaced:
            owner?.reset(stream: id, code: HTTP2Session.noError)
        }
        owner?.resetUnlessEnded(self)
    }

    /// Tunnel bytes from the client: delivered unless the tunnel is paused or not open yet
    /// (then held, and the window stays closed for them: backpressure to the client).
    func receivedTunnelData(_ bytes: [UInt8]) {
        switch tunnel {
        case .closing, .closed:
            // The gateway's side ended: what still comes is read and dropped, as an HTTP/1.1
            // connection does once its FIN is sent.
            owner?.consume(stream: id, count: bytes.count)
        case .none, .open:
            heldBody.append(bytes)
            if case .open(_, _, isPaused: false) = tunnel { deliverToTunnel() }
        }
    }

    /// The client ended its side (END_STREAM): the tunnel is over once its bytes are delivered.
    func receivedTunnelEnd() {
        heldEnd = .ended(trailers: nil)
        switch tunnel {
        case .open(_, _, isPaused: false): deliverToTunnel()
        case .closing: tunnelClosed()
        case .open, .none, .closed: break
        }
    }

    private func deliverToTunnel() {
        while case .open(let tunnel, let delegate, isPaused: false) = self.tunnel, !heldBody.isEmpty {
            let bytes = heldBody.removeFirst()
            owner?.consume(stream: id, count: bytes.count)
            delegate.tunnel(tunnel, received: bytes[...])
        }
        guard case .open = tunnel, heldBody.isEmpty, case .ended = heldEnd else { return }
        // The client is done; the upstream side closes, and so does the gateway's side.
        closeTunnel()
        tunnelClosed()
    }

    /// Wakes whoever waits to write: the exchange, or the tunnel's delegate.
    func becameWritable() {
        if case .open(let tunnel, let delegate, _) = tunnel {
            delegate.tunnelDidBecomeWritable(tunnel)
        } else {
            exchange?.becameWritable()
        }
    }

    /// The tunnel is over for the delegate; the stream stops counting against the limit.
    private func tunnelClosed() {
        switch tunnel {
        case .open(let tunnel, let delegate, _), .closing(let tunnel, let delegate):
            self.tunnel = .closed
            delegate.tunnelDidClose(tunnel)
            owner?.workEnded(on: self)
        case .none, .closed:
            break
        }
    }

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
        owner?.workEnded(on: self)
        // Held body bytes nobody will read go back to the connection's window.
        let held = heldBody.reduce(0) { $0 + $1.count }
        heldBody = []
        owner?.consume(stream: id, count: held)
    }

    // MARK: Deadlines

    /// The body deadline runs while the exchange reads and nothing of the client's is held:
    /// the stream waits for the client only then (a paused exchange waits for the upstream).
    private func updateBodyDeadline() {
        let waitsForClient: Bool
        if let exchange, exchange.requestBody == .reading, heldBody.isEmpty, case .none = heldEnd {
            waitsForClient = true
        } else {
            waitsForClient = false
        }
        if waitsForClient {
            let timer = bodyTimer ?? owner?.makeTimer { [weak self] in self?.bodyDeadlinePassed() }
            bodyTimer = timer
            if let timer { owner?.arm(timer, for: .requestBody) }
        } else if let bodyTimer {
            owner?.disarm(bodyTimer)
        }
    }

    /// The request body stalled: 408 if nothing of the response left yet, else a reset, as an
    /// HTTP/1.1 connection answers or closes.
    private func bodyDeadlinePassed() {
        guard let exchange, exchange.requestBody == .reading else { return }
        owner?.streamTimedOut()
        refuseBody(status: 408)
    }

    /// Queued response bytes must make progress through the client's window within the write
    /// timeout; armed when bytes are queued and not already watched.
    private func armWriteDeadline() {
        guard let owner else { return }
        let timer = windowTimer ?? owner.makeTimer { [weak self] in self?.writeDeadlinePassed() }
        windowTimer = timer
        guard !timer.isArmed else { return }
        framedAtArming = owner.framedBytes(stream: id)
        owner.arm(timer, for: .window)
    }

    /// Nothing queued is left: done. Progress since the arming: watched again. None: a reader
    /// that does not open its window; the stream is reset and its exchange (or tunnel) ends.
    private func writeDeadlinePassed() {
        guard let owner, let windowTimer else { return }
        guard owner.pendingBytes(stream: id) + queuedBodyCount > 0 else { return }
        let framed = owner.framedBytes(stream: id)
        if framed != framedAtArming {
            framedAtArming = framed
            owner.arm(windowTimer, for: .window)
            return
        }
        owner.streamTimedOut()
        owner.reset(stream: id, code: HTTP2Session.cancel)
        if let exchange {
            exchange.abort()
            end()
        }
        tunnelClosed()
    }

    /// nghttp2 closed the stream (complete, or reset by either side).
    func closed() {
        if let bodyTimer { owner?.cancel(bodyTimer) }
        if let windowTimer { owner?.cancel(windowTimer) }
        tunnelClosed()
        if let exchange {
            exchange.abort()
            end()
        }
        // Tunnel bytes nobody will read go back to the connection's window.
        let held = heldBody.reduce(0) { $0 + $1.count }
        heldBody = []
        owner?.consume(stream: id, count: held)
    }

    /// Whether nothing runs on the stream any more (no exchange, no open tunnel).
    var isDone: Bool {
        guard exchange == nil else { return false }
        switch tunnel {
        case .none, .closed: return true
        case .open, .closing: return false
        }
    }
}

@available(*, unavailable, message: "loop-owned")
extension HTTP2Stream: Sendable {}
