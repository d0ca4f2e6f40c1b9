import AppNativeCore
import AppNativeHTTP

/// The HTTP/2 side of a client connection: the nghttp2 session, the streams' state machine and
/// the streams that carry exchanges. `ServerConnection` keeps the I/O (one read loop, one output
/// queue, one write-demand mechanism, the timers and the closing sequence for both protocols)
/// and hands this its bytes; this executes what the state machine decides. Loop-owned.
final class HTTP2Connection {
    private let session: HTTP2Session
    private var state: HTTP2ConnectionState
    private var streams: [Int32: HTTP2Stream] = [:]
    private unowned let connection: ServerConnection
    private unowned let context: LoopContext
    private let settings: HTTP2Settings
    /// Streams whose head waits for the next flush.
    private var headsToSubmit: [HTTP2Stream] = []
    /// Streams whose producer was refused room and waits to hear there is some.
    private var waitingForRoom: [HTTP2Stream] = []
    /// Streams whose exchange asked for (more of) its body since the last delivery.
    private var deliveries: [HTTP2Stream] = []
    /// Spare event storage, swapped with the inbox's so that handling allocates nothing.
    private var spareEvents: [HTTP2SessionEvent] = []
    private(set) var lifecycle = Lifecycle.serving

    enum Lifecycle: Equatable {
        case serving
        /// GOAWAY sent: the streams it admitted finish, then the connection closes.
        case goingAway
        /// A connection error: the GOAWAY (if any) is flushed, then the connection closes.
        case failed
    }

    init?(connection: ServerConnection, context: LoopContext, settings: HTTP2Settings) {
        guard let session = HTTP2Session(settings: settings, limits: context.configuration.limits) else { return nil }
        self.session = session
        self.connection = connection
        self.context = context
        self.settings = settings
        state = HTTP2ConnectionState(limits: context.configuration.limits, maxStreams: settings.maxConcurrentStreams)
    }

    /// Streams with an exchange or an answer in flight.
    var hasOpenStreams: Bool { state.openStreamCount > 0 || !streams.isEmpty }

    /// Whether the connection should close once its output is flushed.
    var isFinished: Bool {
        switch lifecycle {
        case .failed: true
        case .goingAway: !hasOpenStreams
        case .serving: !session.wantsRead && !session.wantsWrite
        }
    }

    // MARK: Input

    /// Feeds received bytes to the session and acts on what they caused.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard lifecycle != .failed else { return }
        // unsafe: `bytes` is the caller's borrowed buffer, read by the session during this call only.
        let result = unsafe session.receive(bytes)
        handleEvents()
        if case .failure = result {
            // Flooding, an HPACK bomb, a bad preface: the session is unusable. GOAWAY is tried.
            session.terminate(code: HTTP2Session.enhanceYourCalm)
            lifecycle = .failed
            connection.http2Changed()
        }
        connection.http2WantsFlush()
    }

    private func handleEvents() {
        while !session.inbox.events.isEmpty {
            var events = spareEvents
            swap(&events, &session.inbox.events)
            for event in events {
                if let action = state.handle(event) { perform(action) }
            }
            events.removeAll(keepingCapacity: true)
            spareEvents = events
        }
    }

    private func perform(_ action: HTTP2ConnectionState.Action) {
        switch action {
        case .startExchange(let id, let head, let framing):
            let stream = HTTP2Stream(id: id, owner: self)
            let exchange = HTTPExchange(
                request: head, framing: framing, peer: connection.peer, isSecure: connection.isSecure, loop: context.loop,
                connection: stream
            )
            stream.attach(exchange)
            streams[id] = stream
            context.handler.serve(exchange)
        case .startWebSocket(let id, var head):
            guard let handshake = HTTP2WebSocketHandshake.make() else {
                session.reset(stream: id, code: HTTP2Session.internalError)
                state.exchangeEnded(stream: id)
                break
            }
            head.headers.add(name: "Sec-WebSocket-Key", value: handshake.key)
            let stream = HTTP2Stream(id: id, owner: self, kind: .webSocket(handshake))
            let exchange = HTTPExchange(
                request: head, framing: .none, peer: connection.peer, isSecure: connection.isSecure, loop: context.loop,
                connection: stream
            )
            stream.attach(exchange)
            streams[id] = stream
            context.handler.serve(exchange)
        case .tunnelData(let id, let bytes):
            if let stream = streams[id] { stream.receivedTunnelData(bytes) } else { session.consume(stream: id, count: bytes.count) }
        case .tunnelEnded(let id):
            streams[id]?.receivedTunnelEnd()
        case .deliverBody(let id, let bytes):
            if let stream = streams[id] { stream.received(bytes) } else { session.consume(stream: id, count: bytes.count) }
        case .endBody(let id, let trailers):
            streams[id]?.receivedEnd(trailers)
        case .answer(let id, let status):
            context.shared.parseErrors.increment()
            answer(stream: id, status: status)
        case .refuseBody(let id, let status):
            context.shared.parseErrors.increment()
            streams[id]?.refuseBody(status: status)
        case .reset(let id, let code):
            if code != HTTP2Session.refusedStream { context.shared.parseErrors.increment() }
            session.reset(stream: id, code: code)
        case .discard(let id, let count):
            session.consume(stream: id, count: count)
        case .closed(let id, _):
            let stream = streams.removeValue(forKey: id)
            stream?.closed()
            // Its exchange (and tunnel) ended with the close: the stream stops counting.
            if stream?.isDone ?? true { state.exchangeEnded(stream: id) }
        }
        connection.http2Changed()
    }

    // MARK: What streams ask for

    func consume(stream id: Int32, count: Int) { session.consume(stream: id, count: count) }

    func deliverLater(_ stream: HTTP2Stream) {
        deliveries.append(stream)
        context.loop.runAtEndOfIteration { [weak self] in self?.deliverHeldBodies() }
    }

    private func deliverHeldBodies() {
        let due = deliveries
        deliveries = []
        for stream in due { stream.deliverHeld() }
    }

    func submitLater(_ stream: HTTP2Stream) {
        headsToSubmit.append(stream)
        connection.http2WantsFlush()
    }

    func submitResponse(stream id: Int32, head: HTTPResponseHead, hasBody: Bool) -> Bool {
        session.submitResponse(stream: id, status: head.status, headers: head.headers, hasBody: hasBody)
    }

    func appendData(stream id: Int32, _ bytes: ArraySlice<UInt8>) {
        session.appendData(stream: id, bytes)
        connection.http2WantsFlush()
    }

    func endData(stream id: Int32, trailers: HTTPHeaders?) {
        session.endData(stream: id, trailers: trailers)
        connection.http2WantsFlush()
    }

    func reset(stream id: Int32, code: UInt32) {
        session.reset(stream: id, code: code)
        connection.http2WantsFlush()
    }

    /// Whether a stream may queue more response bytes: within its own bound and the connection's.
    func hasRoom(for id: Int32, queued: Int) -> Bool {
        session.pendingBytes(stream: id) + queued < settings.streamBufferBytes
            && session.pendingBytes < settings.connectionBufferBytes
            && connection.isBelowHighWatermark
    }

    func waitForRoom(_ stream: HTTP2Stream) {
        if !waitingForRoom.contains(where: { $0 === stream }) { waitingForRoom.append(stream) }
    }

    /// An answer of the server's own (`{"detail": …}`), as HTTP/1.1 sends for a refused request.
    func answer(stream id: Int32, status: Int) {
        let body = Array(JSONErrorBody.detail(HTTPStatus.reason(status)).utf8)
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(body.count))
        guard session.submitResponse(stream: id, status: status, headers: headers, hasBody: true) else {
            session.reset(stream: id, code: HTTP2Session.internalError)
            return
        }
        session.appendData(stream: id, body[...])
        session.endData(stream: id, trailers: nil)
        connection.http2WantsFlush()
    }

    func exchangeEnded(_ exchange: HTTPExchange, on stream: HTTP2Stream) {
        context.handler.exchangeDidEnd(exchange)
        connection.http2Changed()
    }

    /// The stream's exchange, or the tunnel it became, is over: the state machine stops
    /// counting it once nghttp2 closed it too.
    func workEnded(on stream: HTTP2Stream) {
        state.exchangeEnded(stream: stream.id)
        connection.http2Changed()
    }

    /// An interim (1xx) response head on its own HEADERS frame.
    func submitInformational(stream id: Int32, _ head: HTTPResponseHead) {
        _ = session.submitInformational(stream: id, status: head.status, headers: head.headers)
        connection.http2WantsFlush()
    }

    // MARK: Stream deadlines

    func makeTimer(_ action: @escaping () -> Void) -> LoopTimer { context.loop.makeTimer(action) }

    /// Arms a stream's deadline for what it waits for from the client.
    func arm(_ timer: LoopTimer, for wait: HTTP2Stream.Wait) {
        let timeout = wait == .requestBody ? context.bodyIdleNanoseconds : context.writeNanoseconds
        context.loop.arm(timer, at: context.loop.nowNanoseconds + timeout)
    }

    func disarm(_ timer: LoopTimer) { context.loop.disarm(timer) }

    func cancel(_ timer: LoopTimer) { context.loop.cancel(timer) }

    func pendingBytes(stream id: Int32) -> Int { session.pendingBytes(stream: id) }

    func framedBytes(stream id: Int32) -> UInt64 { session.framedBytes(stream: id) }

    /// A tunnel the gateway ended waits for the client's END_STREAM at most the write timeout,
    /// then is reset (RST_STREAM NO_ERROR: stop sending), as an HTTP/1.1 connection lingers at
    /// most so long after its FIN.
    func resetUnlessEnded(_ stream: HTTP2Stream) {
        let id = stream.id
        context.loop.schedule(after: .nanoseconds(Int64(clamping: context.writeNanoseconds))) { [weak self, weak stream] in
            guard let self, let stream, !stream.isDone else { return }
            self.reset(stream: id, code: HTTP2Session.noError)
        }
    }

    /// A stream's client let a deadline pass (counted with the connections' timeouts).
    func streamTimedOut() {
        context.shared.timeouts.increment()
        connection.http2Changed()
    }

    // MARK: Output

    /// Serialises frames into `output` (up to `limit` pending bytes). Touches nothing but the
    /// session and `output`: what sending caused is handled by `afterOutput`, once the
    /// connection no longer holds its output queue.
    func produce(into output: inout OutgoingBytes, upTo limit: Int) -> Bool {
        if !headsToSubmit.isEmpty {
            let heads = headsToSubmit
            headsToSubmit = []
            for stream in heads { stream.submitQueuedHead() }
        }
        guard case .success = session.produce(into: &output, upTo: limit) else { return false }
        return true
    }

    /// Handles what sending caused (streams nghttp2 closed) and wakes producers that waited
    /// for room and now have some.
    func afterOutput() {
        handleEvents()
        notifyRoom()
    }

    /// Whether nghttp2 has more to send than the last `produce` took.
    var wantsWrite: Bool { !headsToSubmit.isEmpty || session.wantsWrite }

    private func notifyRoom() {
        guard !waitingForRoom.isEmpty else { return }
        let waiting = waitingForRoom
        waitingForRoom = []
        for stream in waiting {
            if stream.isBelowHighWatermark {
                stream.becameWritable()
            } else {
                waitingForRoom.append(stream)
            }
        }
    }

    // MARK: Ending

    /// Graceful shutdown: GOAWAY with the last stream processed; admitted streams finish.
    func goAway() {
        guard lifecycle == .serving else { return }
        session.goAway()
        lifecycle = .goingAway
        connection.http2WantsFlush()
        connection.http2Changed()
    }

    /// The connection is closing: every running exchange is aborted.
    func closeAll() {
        let open = streams
        streams = [:]
        headsToSubmit = []
        waitingForRoom = []
        deliveries = []
        for stream in open.values { stream.closed() }
    }
}

@available(*, unavailable, message: "loop-owned")
extension HTTP2Connection: Sendable {}
