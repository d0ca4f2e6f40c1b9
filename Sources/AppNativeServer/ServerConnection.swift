import AppNativeCore
import AppNativeHTTP
internal import CAppNativeLinux
import Glibc

/// One client connection, owned by one event loop (no locks): the I/O shell around
/// `ServerConnectionState`. Readiness, parsed input, timer expiry and the calls of exchanges,
/// tunnels and the HTTP/2 session become events of the state; the shell performs the action each
/// returns (timer, writes, callbacks into handlers) after the transition, never inside it.
///
/// Reading stops while a handler has not asked for the body, while it paused the body, or while
/// too much pipelined input is buffered (backpressure into TCP).
final class ServerConnection: EventHandler, EndOfIterationWork, ExchangeCarrier, SocketReading {
    typealias State = ServerConnectionState<HTTPExchange, TunnelEnd, HTTP2Connection>

    /// A tunnel and the owner that hears the client's bytes. A class, so that releasing it inside
    /// a transition runs a known deinit (an existential's release could run anything, which
    /// would cost every access to the state a dynamic exclusivity check).
    final class TunnelEnd {
        let tunnel: Tunnel
        let delegate: any TunnelDelegate

        init(tunnel: Tunnel, delegate: any TunnelDelegate) {
            self.tunnel = tunnel
            self.delegate = delegate
        }
    }

    let fd: Int32
    let peer: SocketAddress?
    private let transport: any ConnectionTransport
    let isSecure: Bool
    private unowned let context: LoopContext
    private var state: State
    private var parser: HTTPRequestParser
    private var reader = SocketReader()
    /// Unconsumed input (`buffered[bufferedStart...]`), only used when a read left bytes over.
    private var buffered: [UInt8] = []
    private var bufferedStart = 0
    private var output = OutgoingBytes()
    private var writeDemand = WriteDemand.none
    var isClosed: Bool { state.isClosed }
    var registryIndex = -1
    /// The deadline of the current phase (the state says which), on the loop's timer heap.
    /// Re-armed in place as the phases change; no allocation per request. Unowned: the loop's
    /// registration keeps the connection alive until `close()`, which takes the timer out of the
    /// heap.
    private lazy var deadline = context.loop.makeTimer { [unowned self] in self.deadlinePassed() }

    /// How long a closing connection keeps reading for the peer's close.
    private static let lingerTimeout: Duration = .seconds(5)

    init(fd: Int32, peer: SocketAddress?, transport: any ConnectionTransport, isSecure: Bool, context: LoopContext) {
        self.fd = fd
        self.peer = peer
        self.transport = transport
        self.isSecure = isSecure
        self.context = context
        parser = HTTPRequestParser(limits: context.configuration.limits)
        state = State(choosesProtocol: context.configuration.http2 != nil)
        apply(.arm(.keepAlive))
    }

    // MARK: Performing

    private func apply(_ change: State.DeadlineChange) {
        switch change {
        case .keep:
            break
        case .disarm:
            context.loop.disarm(deadline)
        case .arm(let phase):
            let timeout: UInt64
            switch phase {
            case .keepAlive: timeout = context.keepAliveNanoseconds
            case .head: timeout = context.headerNanoseconds
            case .body: timeout = context.bodyIdleNanoseconds
            case .write: timeout = context.writeNanoseconds
            case .linger: timeout = Self.lingerTimeout.wholeNanoseconds
            }
            context.loop.arm(deadline, at: context.loop.nowNanoseconds + timeout)
        }
    }

    private func perform(_ step: State.Step) {
        apply(step.deadline)
        switch step.action {
        case .none:
            break
        case .serve(let exchange):
            context.handler.serve(exchange)
        case .endExchange(let exchange, let then):
            exchange.ended()
            context.handler.exchangeDidEnd(exchange)
            switch then {
            case .keepAlive: resumeReading()
            case .closeAfterFlush: closeAfterFlush()
            }
        case .sendError(let status, let exchange):
            exchange?.abort()
            sendErrorResponse(status: status)
        case .abortAndClose(let exchange):
            exchange.abort()
            close()
        case .resumeReading:
            resumeReading()
        case .endExchangeForTunnel(let exchange):
            exchange.ended()
            context.handler.exchangeDidEnd(exchange)
            resumeReading()
        case .continueAndResumeReading:
            append(Self.continueHead)
            resumeReading()
        case .closeAfterFlush(let ending):
            tearDown(ending)
            closeAfterFlush()
        case .close:
            close()
        case .goAwayAndCloseAfterFlush(let http2):
            http2.goAway()
            closeAfterFlush()
        case .goAway(let http2):
            http2.goAway()
        case .producerMayWrite(.exchange(let exchange)):
            exchange.becameWritable()
        case .producerMayWrite(.tunnel(let end)):
            end.delegate.tunnelDidBecomeWritable(end.tunnel)
        case .shutDownOutput:
            shutDownOutput()
        case .linger:
            _ = shutdown(fd, Int32(SHUT_WR))
            resumeReading()
        }
    }

    private func tearDown(_ ending: State.Ending) {
        switch ending {
        case .nothing:
            break
        case .exchange(let exchange):
            exchange.abort()
            context.handler.exchangeDidEnd(exchange)
        case .tunnel(let end):
            end.delegate.tunnelDidClose(end.tunnel)
        case .http2(let http2):
            http2.closeAll()
        }
    }

    private static let continueHead = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    // MARK: Events

    func handle(events: IOEvents) {
        if events.contains(.writable) {
            if state.writableShutsDown { shutDownOutput() } else { flush() }
        }
        if !events.isDisjoint(with: SocketReader.inputEvents) {
            reader = reader.afterReadiness(events)
            readFromSocket()
        }
    }

    var wantsInput: Bool {
        let bufferedInput = buffered.count - bufferedStart
        // The output's size matters to HTTP/2 only; reading it costs a dynamic exclusivity check.
        let outputBelowWatermark = state.isHTTP2 ? isBelowHighWatermark : true
        return state.wantsToRead(bufferedInput: bufferedInput, outputBelowWatermark: outputBelowWatermark)
    }

    var socketMayHaveInput: Bool { reader.mayHaveInput }

    func receiveIntoBuffer() -> TransportResult {
        // unsafe: the transport writes at most the scratch buffer's count bytes into it, inside the closure.
        let result = unsafe context.scratch.withUnsafeMutableBytes { unsafe transport.receive(into: $0) }
        let bufferSize = context.scratch.count
        let shortReadDrainsSocket = transport.shortReadDrainsSocket
        reader = reader.afterRead(result, bufferSize: bufferSize, shortReadDrainsSocket: shortReadDrainsSocket)
        return result
    }

    func received(count: Int) {
        switch state.bytesArrived() {
        case .drop:
            break
        case .consume(let change):
            apply(change)
            consume(count: count)
        }
    }

    private func readFromSocket() {
        switch readAvailable() {
        case .stopped:
            break
        case .wouldBlock:
            // The socket is drained until its next edge. (HTTP/2 relies on it: its flush asks
            // to resume reading, which must not read and flush again in a circle.)
            if state.isHTTP2 { reader = reader.waitingForNextEdge }
            // TLS may need to write to make progress (handshake, renegotiation refused).
            flush()
        case .closed:
            perform(state.peerClosed())
        case .failed:
            // A reset peer cannot read the answer either; over TLS a failed read ends the
            // session.
            close()
        }
    }

    /// Feeds freshly received bytes (in the scratch buffer) to the parser, keeping leftovers.
    private func consume(count: Int) {
        if bufferedStart == buffered.count {
            buffered.removeAll(keepingCapacity: true)
            bufferedStart = 0
            let used = feed(context.scratch, 0..<count)
            if used < count, !isClosed {
                buffered.append(contentsOf: context.scratch[used..<count])
            }
        } else {
            buffered.append(contentsOf: context.scratch[0..<count])
            processBufferedInput()
        }
    }

    /// Parses whatever is buffered (after a read, or when a pause ends).
    private func processBufferedInput() {
        // With no bytes left, a paused body may still owe its `.end` (the last chunk was delivered
        // before the pause): the parser is run on empty input to produce it.
        guard bufferedStart < buffered.count || state.owesBodyEnd else { return }
        let used = feed(buffered, bufferedStart..<buffered.count)
        bufferedStart += used
        if bufferedStart == buffered.count {
            buffered.removeAll(keepingCapacity: true)
            bufferedStart = 0
        } else if bufferedStart > 64 * 1024 {
            buffered.removeFirst(bufferedStart)
            bufferedStart = 0
        }
    }

    /// Runs the parser over `bytes[range]` while the state lets it; returns the bytes consumed.
    /// `bytes` is a copy of the buffer's reference: body slices handed out are views of it, never
    /// of storage that is reused while they live.
    private func feed(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        var position = range.lowerBound
        parsing: while true {
            switch state.route(hasInput: position < range.upperBound) {
            case .chooseProtocol:
                if !chooseProtocol(bytes, range) { return 0 }
                continue parsing
            case .http2(let http2):
                if position < range.upperBound {
                    // unsafe: the session reads the borrowed range inside the closure only.
                    unsafe bytes.withUnsafeBytes { unsafe http2.receive(UnsafeRawBufferPointer(rebasing: $0[position..<range.upperBound])) }
                }
                return range.count
            case .tunnel(let end):
                if position < range.upperBound { end.delegate.tunnel(end.tunnel, received: bytes[position..<range.upperBound]) }
                return range.count
            case .hold:
                break parsing
            case .parse:
                break
            }
            let start = position
            let step: (consumed: Int, event: HTTPParserEvent<HTTPRequestHead>?)
            switch parser.parse(bytes, in: start..<range.upperBound) {
            case .success(let result): step = result
            case .failure(let error):
                context.shared.parseErrors.increment()
                perform(state.parseFailed(status: error.status))
                return range.count
            }
            position += step.consumed
            guard let event = step.event else {
                if step.consumed == 0 || position == range.upperBound { break }
                continue
            }
            switch event {
            case .head(let head, let framing):
                let exchange = HTTPExchange(
                    request: head, framing: framing, peer: peer, isSecure: isSecure, loop: context.loop, connection: self
                )
                perform(state.requestStarted(exchange, keepAlive: head.isKeepAlive, draining: context.isDraining))
            case .body(let body):
                state.exchange?.bodyChunk(bytes[(start + body.lowerBound)..<(start + body.upperBound)])
            case .end(let trailers):
                if let exchange = state.exchange {
                    exchange.bodyEnded(trailers)
                    perform(state.bodyEnded())
                }
            }
        }
        return position - range.lowerBound
    }

    /// Chooses HTTP/2 or HTTP/1.1 from the first bytes; false: not enough bytes yet.
    private func chooseProtocol(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        let verdict: ConnectionPreface.Verdict
        if isSecure {
            // The handshake is done once application bytes arrive; ALPN decided.
            verdict = transport.selectedHTTP2 ? .http2 : .http1
        } else {
            verdict = ConnectionPreface.classify(bytes[range])
        }
        switch verdict {
        case .undecided:
            return false
        case .http1:
            state.choseHTTP1()
        case .http2:
            startHTTP2()
        }
        return true
    }

    private func startHTTP2() {
        guard let settings = context.configuration.http2,
            let http2 = HTTP2Connection(connection: self, context: context, settings: settings)
        else {
            state.choseHTTP1()
            close()
            return
        }
        let step = state.startedHTTP2(http2, draining: context.isDraining)
        context.shared.http2Connections.increment()
        // The server's SETTINGS go out with the first flush.
        http2WantsFlush()
        perform(step)
    }


    private func deadlinePassed() {
        context.shared.timeouts.increment()
        perform(state.deadlinePassed())
    }

    // MARK: HTTP/2

    /// HTTP/2 frames wait to be serialised and sent.
    func http2WantsFlush() {
        deferToEndOfIteration(.flush)
    }

    /// Streams opened or ended, or the session ended: deadlines and closing are checked at the
    /// end of the iteration (never inside the session's calls).
    func http2Changed() {
        deferToEndOfIteration(.http2Check)
    }

    // MARK: Exchange callbacks

    func bodyRequested(by exchange: HTTPExchange) {
        let expectsContinue = exchange.request.headers.first("Expect")?.lowercased() == "100-continue"
        perform(state.bodyRequested(by: exchange, sendsContinue: expectsContinue))
    }

    func bodyResumed(by exchange: HTTPExchange) {
        perform(state.bodyResumed(by: exchange))
    }

    func pauseTunnel() {
        _ = state.tunnelPaused()
    }

    func resumeTunnel() {
        let resumed = state.tunnelResumed()
        perform(resumed.step)
    }

    func exchangeFinished(_ exchange: HTTPExchange) {
        perform(state.exchangeFinished(exchange))
    }

    func closeAfterResponse() {
        state.closeAfterResponse()
    }

    func prepareConnectionHeader(_ head: inout HTTPResponseHead, exchange: HTTPExchange) {
        switch state.responseHeadLeaving(isHTTP10: exchange.request.version.minor == 0, draining: context.isDraining) {
        case .unchanged: break
        case .close: head.headers.replaceOrAdd(name: "Connection", value: "close")
        case .keepAlive: head.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
    }

    /// Continues with buffered input, then with the socket (edge-triggered: no new event will come).
    private func resumeReading() {
        deferToEndOfIteration(.resume)
    }

    /// What waits for the end of the loop iteration; the connection is registered once per
    /// iteration however much it defers.
    private struct DeferredWork: OptionSet {
        let rawValue: UInt8
        /// Coalesce everything written in this iteration into one `send`.
        static let flush = DeferredWork(rawValue: 1)
        /// Continue with buffered input, then the socket (edge-triggered: no new event will come).
        static let resume = DeferredWork(rawValue: 2)
        /// Check an HTTP/2 connection's deadline and whether it is done.
        static let http2Check = DeferredWork(rawValue: 4)
    }

    private var deferred: DeferredWork = []

    private func deferToEndOfIteration(_ work: DeferredWork) {
        if deferred.isEmpty { context.loop.runAtEndOfIteration(self) }
        deferred.formUnion(work)
    }

    func runEndOfIterationWork() {
        let work = deferred
        deferred = []
        // Flush first: what the finished exchange wrote leaves before the next one is read.
        if work.contains(.flush) { flush() }
        if work.contains(.resume), !isClosed {
            processBufferedInput()
            readFromSocket()
        }
        if work.contains(.http2Check), case .http2(let http2) = state.activity {
            let facts = State.HTTP2Facts(isFinished: http2.isFinished, hasOpenStreams: http2.hasOpenStreams)
            perform(state.http2Changed(facts))
        }
    }

    // MARK: Failures

    /// A complete error response from the server itself, then close.
    private func sendErrorResponse(status: Int) {
        let body = Array(JSONErrorBody.detail(HTTPStatus.reason(status)).utf8)
        var head = HTTPResponseHead(status: status, reason: HTTPStatus.reason(status))
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: String(body.count))
        head.headers.add(name: "Connection", value: "close")
        if status == 405 { head.headers.add(name: "Allow", value: HTTPRequestParser.allowedMethods.joined(separator: ", ")) }
        writeHead(head)
        append(body)
        closeAfterFlush()
    }

    // MARK: Writing

    var isBelowHighWatermark: Bool { output.pendingCount < context.configuration.writeHighWatermark }

    func writeHead(_ head: HTTPResponseHead) {
        guard !isClosed else { return }
        output.appendResponseHead(head)
        scheduleFlush()
    }

    /// Where the current final response starts in the output, for `retractResponse()`.
    private var responseMark = 0

    /// Called before a final response head is written.
    func beginResponse() {
        responseMark = output.mark
    }

    /// Takes back the current response if none of its bytes has reached the socket.
    func retractResponse() -> Bool {
        guard state.isOpen else { return false }
        return output.retract(to: responseMark)
    }

    func write(_ bytes: ArraySlice<UInt8>) {
        guard !isClosed else { return }
        output.append(bytes)
        scheduleFlush()
    }

    func writeChunk(_ bytes: ArraySlice<UInt8>) {
        guard !isClosed else { return }
        output.appendChunk(bytes)
        scheduleFlush()
    }

    func writeLastChunk(trailers: HTTPHeaders?) {
        guard !isClosed else { return }
        output.appendLastChunk(trailers: trailers)
        scheduleFlush()
    }

    private func append(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        output.append(bytes)
        scheduleFlush()
    }

    /// Coalesces everything written in this loop iteration into one `send`.
    private func scheduleFlush() {
        writeDemand = writeDemand.afterQueuing(pendingCount: output.pendingCount, highWatermark: context.configuration.writeHighWatermark)
        deferToEndOfIteration(.flush)
    }

    private func flush() {
        switch state.writer {
        case .closed: return
        case .http2(let http2):
            flushHTTP2(http2)
            return
        case .http1: break
        }
        switch output.drain(to: transport) {
        case .blocked(let progressed):
            // Wait for EPOLLOUT; a client that stops reading hits the write timeout.
            apply(state.writeBlocked(progressed: progressed))
        case .failed:
            if let exchange = state.exchange { exchange.abort() }
            close()
        case .drained:
            let demand = writeDemand
            let drained = state.writeDrained(demand: demand)
            writeDemand = drained.demand
            perform(drained.step)
        }
    }

    /// Serialises what the session has to send, in batches of the high watermark, and writes
    /// it; stops when the socket is full (EPOLLOUT continues) or nothing is left.
    private func flushHTTP2(_ http2: HTTP2Connection) {
        let limit = context.configuration.writeHighWatermark
        var rounds = 0
        while true {
            if state.producesHTTP2Output, !http2.produce(into: &output, upTo: limit) {
                http2Changed()
            }
            let produced = !output.isEmpty
            switch output.drain(to: transport) {
            case .blocked(let progressed):
                // Wait for EPOLLOUT; a client that stops reading hits the write timeout.
                apply(state.writeBlocked(progressed: progressed))
                http2.afterOutput()
                return
            case .failed:
                close()
                return
            case .drained:
                break
            }
            http2.afterOutput()
            rounds += 1
            guard !isClosed, produced, http2.wantsWrite, state.producesHTTP2Output else { break }
            if rounds == 16 {
                // Other connections get their turn; this one continues at the end of the iteration.
                deferToEndOfIteration(.flush)
                break
            }
        }
        guard !isClosed else { return }
        // Reading stops while output is above the watermark; it may go on now.
        if state.isOpen { deferToEndOfIteration([.resume, .http2Check]) }
        let hasOpenStreams = http2.hasOpenStreams
        let demand = writeDemand
        let drained = state.writeDrained(demand: demand, http2HasOpenStreams: hasOpenStreams)
        writeDemand = drained.demand
        perform(drained.step)
    }

    // MARK: Tunnel

    func startTunnel(for exchange: HTTPExchange, delegate: any TunnelDelegate) -> Tunnel? {
        let tunnel = Tunnel(connection: self)
        perform(state.tunnelStarted(TunnelEnd(tunnel: tunnel, delegate: delegate), by: exchange))
        return tunnel
    }

    // MARK: Closing

    /// Ends the connection once the queued answer is out (see `ServerConnectionState.Lifecycle`).
    func closeAfterFlush() {
        guard state.closeAfterFlush() else { return }
        buffered.removeAll()
        bufferedStart = 0
        if output.isEmpty {
            shutDownOutput()
        } else {
            deferToEndOfIteration(.flush)
        }
        // Input that arrives from now on is read and dropped, so it never turns into a reset.
        deferToEndOfIteration(.resume)
    }

    /// The answer is out: close_notify (TLS), then FIN, then linger for the peer's close.
    private func shutDownOutput() {
        let result: State.ShutdownResult
        switch transport.shutdown() {
        case .wouldBlock: result = .wouldBlock
        case .failed: result = .failed
        case .transferred, .closed: result = .done
        }
        perform(state.outputShutDown(result, peerClosed: reader.peerHasClosed))
    }

    func close() {
        guard let (ending, owesCloseNotify) = state.close() else { return }
        tearDown(ending)
        if owesCloseNotify { _ = transport.shutdown() }
        context.loop.cancel(deadline)
        context.loop.deregister(fd)
        Glibc.close(fd)
        context.remove(self)
        context.shared.openConnections.add(-1)
    }

    /// Graceful shutdown: idle connections close now, busy ones after their current response.
    /// Not inlined into the server's loop over its connections, where the optimizer would let
    /// the access to the state span the action.
    @inline(never)
    func drain() {
        perform(state.drain())
    }



    /// Abandoning an HTTP/1.1 exchange closes its connection.
    func abandon(_ exchange: HTTPExchange) { close() }
}
