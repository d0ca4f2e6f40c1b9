import AppNativeCore
import AppNativeHTTP
internal import CAppNativeLinux
import Glibc

/// One client connection, owned by one event loop (no locks).
///
/// Requests are handled one at a time: bytes of a pipelined next request stay buffered until the
/// current response is finished, so responses leave in request order (RFC 9112 §9.3.2). Reading
/// stops while a handler has not asked for the body, while it paused the body, or while too much
/// pipelined input is buffered (backpressure into TCP).
final class ServerConnection: EventHandler, EndOfIterationWork, ExchangeCarrier {
    let fd: Int32
    let peer: SocketAddress?
    private let transport: any ConnectionTransport
    let isSecure: Bool
    private unowned let context: LoopContext
    private var parser: HTTPRequestParser
    /// Unconsumed input (`buffered[bufferedStart...]`), only used when a read left bytes over.
    private var buffered: [UInt8] = []
    private var bufferedStart = 0
    private var output = OutgoingBytes()
    private var writeDemand = WriteDemand.none
    /// What the connection serves now (see `Activity`).
    private var activity = Activity.idle
    private var lifecycle = Lifecycle.open
    var isClosed: Bool { lifecycle == .closed }
    private var input = InputState.readable
    var registryIndex = -1
    /// The deadline of the current phase (disarmed: none), on the loop's timer heap, and what it
    /// guards. Re-armed in place as the phases change; no allocation per request. Unowned: the
    /// loop's registration keeps the connection alive until `close()`, which takes the timer out
    /// of the heap.
    private lazy var deadline = context.loop.makeTimer { [unowned self] in self.deadlinePassed() }
    private var deadlinePhase = DeadlinePhase.keepAlive
    /// Whether the protocol is still to be chosen from the first bytes (ALPN over TLS, the
    /// connection preface on cleartext); only when HTTP/2 is on.
    private var protocolChoice: ProtocolChoice

    private enum ProtocolChoice {
        case pending
        case made
    }

    enum DeadlinePhase { case keepAlive, head, body, write, linger }

    /// What the connection serves: nothing (between requests), one exchange at a time, or,
    /// after a 101, a raw tunnel whose delegate hears the client's bytes; or HTTP/2, whose
    /// session and streams get every byte from the start.
    private enum Activity {
        case idle
        case exchange(HTTPExchange)
        case tunnel(Tunnel, any TunnelDelegate, isPaused: Bool)
        case http2(HTTP2Connection)
    }

    /// The exchange being served, if any.
    private var exchange: HTTPExchange? {
        if case .exchange(let exchange) = activity { return exchange }
        return nil
    }

    /// What the socket may still deliver. Edge-triggered epoll reports every later arrival, so a
    /// short plain-TCP read means drained, as nginx assumes; this saves the recv that would only
    /// return EAGAIN.
    private enum InputState {
        /// A readiness event arrived: read until a short read or EAGAIN.
        case readable
        /// A short read or EAGAIN: nothing to read until the next event.
        case drained
        /// The peer's FIN or an error was reported: read until recv returns 0 or fails.
        case peerClosing
        /// recv returned 0: the peer sends nothing more.
        case peerClosed
    }

    /// Whether a producer was refused room (the output passed the high watermark) and waits to
    /// hear that it drained.
    private enum WriteDemand {
        case none
        case producerWaiting
    }

    /// Where the connection is in its life. Closing follows RFC 9112 §9.6: the answer leaves
    /// first, then the TLS close_notify and our FIN, then input is read and dropped until the
    /// peer closes too. Closing with unread input (a body the answer made unnecessary, a
    /// pipelined request after `Connection: close`) would make the kernel send a reset, and a
    /// reset destroys whatever of the answer the client had not read yet: over TLS, all of it.
    private enum Lifecycle {
        case open
        /// Open, but the current response is the last (`Connection: close`, HTTP/1.0, a short
        /// or unframed answer, a body left unread, draining): the connection closes after it.
        case lastResponse
        /// Nothing more is parsed; the queued answer is being written.
        case flushing
        /// The answer is out; the close_notify waits for room in the socket.
        case closingTLS
        /// Our side is shut; input is dropped until the peer closes or the linger deadline.
        case lingering
        case closed

        var isOpen: Bool { self == .open || self == .lastResponse }
    }

    /// The current response is the last on this connection.
    func closeAfterResponse() {
        if lifecycle == .open { lifecycle = .lastResponse }
    }

    /// How long a closing connection keeps reading for the peer's close.
    private static let lingerTimeout: Duration = .seconds(5)

    /// Buffered pipelined input above which reading stops.
    private static let maxBufferedInput = 256 * 1024

    init(fd: Int32, peer: SocketAddress?, transport: any ConnectionTransport, isSecure: Bool, context: LoopContext) {
        self.fd = fd
        self.peer = peer
        self.transport = transport
        self.isSecure = isSecure
        self.context = context
        parser = HTTPRequestParser(limits: context.configuration.limits)
        protocolChoice = context.configuration.http2 == nil ? .made : .pending
        setDeadline(.keepAlive)
    }

    // MARK: Events

    func handle(events: IOEvents) {
        if events.contains(.writable) {
            if lifecycle == .closingTLS { shutDownOutput() } else { flush() }
        }
        if !events.isDisjoint(with: [.readable, .peerClosed, .hangUp, .error]) {
            switch input {
            case .peerClosed, .peerClosing: break
            case .readable, .drained:
                input = events.isDisjoint(with: [.peerClosed, .hangUp, .error]) ? .readable : .peerClosing
            }
            readAvailable()
        }
    }

    private var wantsToRead: Bool {
        guard !isClosed, input != .peerClosed else { return false }
        // A closing connection reads only to drop what arrives (see `Lifecycle`).
        if !lifecycle.isOpen { return true }
        switch activity {
        case .tunnel(_, _, let isPaused):
            return !isPaused
        case .exchange(let exchange):
            // Hold the socket while the handler has not asked for the body or paused it; the
            // kernel's buffers then push back on the client.
            if exchange.requestBody == .unread || exchange.requestBody == .paused { return false }
        case .http2:
            // Flow control bounds request bodies; a client that does not read what it causes
            // (acknowledgements, answers) is not read either.
            return isBelowHighWatermark
        case .idle:
            break
        }
        return buffered.count - bufferedStart <= Self.maxBufferedInput
    }

    private func readAvailable() {
        while wantsToRead && input != .drained {
            let result = context.scratch.withUnsafeMutableBytes { transport.receive(into: $0) }
            switch result {
            case .transferred(let received):
                if received < context.scratch.count && input == .readable && transport.shortReadDrainsSocket {
                    input = .drained
                }
                guard lifecycle.isOpen else { continue }
                if !isHTTP2 {
                    if deadlinePhase == .keepAlive { setDeadline(.head) }
                    if deadlinePhase == .body { setDeadline(.body) }
                }
                consume(count: received)
            case .wouldBlock:
                // The socket is drained until its next edge. (HTTP/2 relies on it: its flush
                // asks to resume reading, which must not read and flush again in a circle.)
                if isHTTP2 { input = .drained }
                // TLS may need to write to make progress (handshake, renegotiation refused).
                flush()
                return
            case .closed:
                peerClosed()
                return
            case .failed:
                if lifecycle == .flushing {
                    // A reset peer cannot read the answer either; over TLS a failed read ends
                    // the session.
                    exchange?.abort()
                }
                close()
                return
            }
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
        let owesBodyEnd = exchange.map { $0.requestBody != .complete } ?? false
        guard bufferedStart < buffered.count || owesBodyEnd else { return }
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

    /// Runs the parser over `bytes[range]` while the current state lets it; returns the bytes
    /// consumed. `bytes` is a copy of the buffer's reference: body slices handed out are views of
    /// it, never of storage that is reused while they live.
    private func feed(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        if protocolChoice == .pending, !chooseProtocol(bytes, range) { return 0 }
        var position = range.lowerBound
        parsing: while lifecycle.isOpen {
            switch activity {
            case .http2(let http2):
                if position < range.upperBound {
                    bytes.withUnsafeBytes { http2.receive(UnsafeRawBufferPointer(rebasing: $0[position..<range.upperBound])) }
                }
                return range.count
            case .tunnel(let tunnel, let delegate, _):
                if position < range.upperBound { delegate.tunnel(tunnel, received: bytes[position..<range.upperBound]) }
                return range.count
            case .exchange(let exchange) where exchange.requestBody != .reading:
                break parsing
            case .idle where position == range.upperBound:
                break parsing
            case .exchange, .idle:
                break
            }
            let start = position
            let step: (consumed: Int, event: HTTPParserEvent<HTTPRequestHead>?)
            switch parse(bytes, start..<range.upperBound) {
            case .success(let result): step = result
            case .failure(let error):
                parseFailed(error)
                return range.count
            }
            position += step.consumed
            guard let event = step.event else {
                if step.consumed == 0 || position == range.upperBound { break }
                continue
            }
            switch event {
            case .head(let head, let framing):
                startExchange(head, framing: framing)
            case .body(let body):
                exchange?.bodyChunk(bytes[(start + body.lowerBound)..<(start + body.upperBound)])
            case .end(let trailers):
                if let exchange {
                    exchange.bodyEnded(trailers)
                    if exchange.isResponseFinished { completeExchange() }
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
            protocolChoice = .made
        case .http2:
            protocolChoice = .made
            startHTTP2()
        }
        return true
    }

    private func startHTTP2() {
        guard let settings = context.configuration.http2,
            let http2 = HTTP2Connection(connection: self, context: context, settings: settings)
        else {
            close()
            return
        }
        activity = .http2(http2)
        context.shared.http2Connections.increment()
        // The server's SETTINGS go out with the first flush.
        http2WantsFlush()
        if context.isDraining { http2.goAway() }
    }

    private var isHTTP2: Bool {
        if case .http2 = activity { return true }
        return false
    }

    /// Whether an exchange (or an HTTP/2 stream) is in progress.
    private var hasActiveWork: Bool {
        switch activity {
        case .exchange, .tunnel: true
        case .http2(let http2): http2.hasOpenStreams
        case .idle: false
        }
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

    private func checkHTTP2() {
        guard case .http2(let http2) = activity, lifecycle.isOpen else { return }
        if http2.isFinished {
            closeAfterFlush()
            return
        }
        if deadlinePhase == .write { return }
        if http2.hasOpenStreams {
            // Streams are bounded by flow control and their handlers' own timeouts.
            if deadline.isArmed { context.loop.disarm(deadline) }
        } else {
            setDeadline(.keepAlive)
        }
    }

    private func parse(_ bytes: [UInt8], _ range: Range<Int>)
        -> Result<(consumed: Int, event: HTTPParserEvent<HTTPRequestHead>?), HTTPParseError>
    {
        bytes.withUnsafeBytes { buffer in
            do throws(HTTPParseError) {
                return .success(try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[range])))
            } catch {
                return .failure(error)
            }
        }
    }

    private func startExchange(_ head: HTTPRequestHead, framing: HTTPBodyFraming) {
        if !head.isKeepAlive || context.isDraining { closeAfterResponse() }
        let exchange = HTTPExchange(
            request: head, framing: framing, peer: peer, isSecure: isSecure, loop: context.loop, connection: self
        )
        activity = .exchange(exchange)
        context.loop.disarm(deadline)
        context.handler.serve(exchange)
    }

    // MARK: Exchange callbacks

    func bodyRequested(by exchange: HTTPExchange) {
        guard exchange === self.exchange, exchange.requestBody != .complete else { return }
        if exchange.request.headers.first("Expect")?.lowercased() == "100-continue", !exchange.hasResponseStarted {
            append(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        setDeadline(.body)
        resumeReading()
    }

    func bodyResumed(by exchange: HTTPExchange) {
        guard exchange === self.exchange else { return }
        resumeReading()
    }

    func pauseTunnel() {
        if case .tunnel(let tunnel, let delegate, isPaused: false) = activity { activity = .tunnel(tunnel, delegate, isPaused: true) }
    }

    func resumeTunnel() {
        guard case .tunnel(let tunnel, let delegate, isPaused: true) = activity else { return }
        activity = .tunnel(tunnel, delegate, isPaused: false)
        resumeReading()
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
            readAvailable()
        }
        if work.contains(.http2Check), !isClosed { checkHTTP2() }
    }

    func exchangeFinished(_ exchange: HTTPExchange) {
        guard exchange === self.exchange else { return }
        if exchange.requestBody == .complete {
            completeExchange()
        } else if exchange.requestBody == .unread || exchange.isAborted {
            // The handler answered without reading the body: closing is cheaper and safer than
            // draining an unknown amount of it.
            closeAfterResponse()
            completeExchange()
        }
        // Otherwise the body is still arriving; `.end` completes the exchange.
    }

    private func completeExchange() {
        guard let exchange else { return }
        activity = .idle
        exchange.ended()
        context.handler.exchangeDidEnd(exchange)
        if lifecycle == .lastResponse {
            closeAfterFlush()
            return
        }
        setDeadline(.keepAlive)
        resumeReading()
    }

    func prepareConnectionHeader(_ head: inout HTTPResponseHead, exchange: HTTPExchange) {
        if context.isDraining { closeAfterResponse() }
        if lifecycle == .lastResponse {
            head.headers.replaceOrAdd(name: "Connection", value: "close")
        } else if exchange.request.version.minor == 0 {
            head.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
    }

    // MARK: Failures

    private func parseFailed(_ error: HTTPParseError) {
        context.shared.parseErrors.increment()
        if let exchange {
            if exchange.hasResponseStarted {
                exchange.abort()
                close()
                return
            }
            exchange.abort()
            activity = .idle
        }
        closeAfterResponse()
        sendErrorResponse(status: error.status, detail: HTTPStatus.reason(error.status))
    }

    /// A complete error response from the server itself, then close.
    private func sendErrorResponse(status: Int, detail: String) {
        let body = Array(JSONErrorBody.detail(detail).utf8)
        var head = HTTPResponseHead(status: status, reason: HTTPStatus.reason(status))
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: String(body.count))
        head.headers.add(name: "Connection", value: "close")
        if status == 405 { head.headers.add(name: "Allow", value: HTTPRequestParser.allowedMethods.joined(separator: ", ")) }
        writeHead(head)
        append(body)
        closeAfterFlush()
    }

    private func deadlinePassed() {
        context.shared.timeouts.increment()
        if case .http2(let http2) = activity {
            if deadlinePhase == .keepAlive && lifecycle.isOpen {
                // Idle: GOAWAY first, so the client knows no stream was lost.
                http2.goAway()
                closeAfterFlush()
            } else {
                close()
            }
            return
        }
        switch deadlinePhase {
        case .keepAlive:
            close()
        case .head:
            sendErrorResponse(status: 408, detail: "Request Timeout")
        case .body:
            if let exchange, !exchange.hasResponseStarted {
                exchange.abort()
                activity = .idle
                sendErrorResponse(status: 408, detail: "Request Timeout")
            } else {
                exchange?.abort()
                close()
            }
        case .write:
            exchange?.abort()
            close()
        case .linger:
            close()
        }
    }

    private func setDeadline(_ phase: DeadlinePhase) {
        deadlinePhase = phase
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

    private func peerClosed() {
        input = .peerClosed
        switch lifecycle {
        case .lingering:
            close()
            return
        case .flushing, .closingTLS:
            // The peer shut its sending side; it may still read the answer being written.
            return
        case .open, .lastResponse, .closed:
            break
        }
        switch activity {
        case .tunnel(let tunnel, let delegate, _):
            activity = .idle
            delegate.tunnelDidClose(tunnel)
        case .exchange(let exchange):
            if exchange.requestBody != .complete || !exchange.isResponseFinished {
                // A half-closed client that already sent its whole request may still read the
                // answer, but HTTP/1.1 clients do not half-close; treat it as gone.
                exchange.abort()
                activity = .idle
                context.handler.exchangeDidEnd(exchange)
            }
        case .http2(let http2):
            // Without its input an HTTP/2 session cannot go on (no window updates, no acks).
            http2.closeAll()
        case .idle:
            break
        }
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
        guard lifecycle.isOpen else { return false }
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
        if !isBelowHighWatermark { writeDemand = .producerWaiting }
        deferToEndOfIteration(.flush)
    }

    private func flush() {
        guard !isClosed else { return }
        if case .http2(let http2) = activity {
            flushHTTP2(http2)
            return
        }
        switch output.drain(to: transport) {
        case .blocked(let progressed):
            // Wait for EPOLLOUT; a client that stops reading hits the write timeout.
            if progressed || deadlinePhase != .write || !deadline.isArmed { setDeadline(.write) }
            return
        case .failed:
            exchange?.abort()
            close()
            return
        case .drained:
            break
        }
        writeDrained()
    }

    /// The output is drained: the write deadline ends, a closing connection shuts down, and a
    /// producer that waited hears of it.
    private func writeDrained() {
        if deadlinePhase == .write {
            if hasActiveWork { context.loop.disarm(deadline) } else { setDeadline(.keepAlive) }
            deadlinePhase = hasActiveWork ? .body : .keepAlive
        }
        if lifecycle == .flushing {
            shutDownOutput()
            return
        }
        if writeDemand == .producerWaiting {
            writeDemand = .none
            switch activity {
            case .exchange(let exchange): exchange.becameWritable()
            case .tunnel(let tunnel, let delegate, _): delegate.tunnelDidBecomeWritable(tunnel)
            case .idle, .http2: break
            }
        }
    }

    /// Serialises what the session has to send, in batches of the high watermark, and writes
    /// it; stops when the socket is full (EPOLLOUT continues) or nothing is left.
    private func flushHTTP2(_ http2: HTTP2Connection) {
        let limit = context.configuration.writeHighWatermark
        var rounds = 0
        while true {
            if lifecycle.isOpen || lifecycle == .flushing, !http2.produce(into: &output, upTo: limit) {
                http2Changed()
            }
            let produced = !output.isEmpty
            switch output.drain(to: transport) {
            case .blocked(let progressed):
                // Wait for EPOLLOUT; a client that stops reading hits the write timeout.
                if progressed || deadlinePhase != .write || !deadline.isArmed { setDeadline(.write) }
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
            guard !isClosed, produced, http2.wantsWrite, lifecycle.isOpen || lifecycle == .flushing else { break }
            if rounds == 16 {
                // Other connections get their turn; this one continues at the end of the iteration.
                deferToEndOfIteration(.flush)
                break
            }
        }
        guard !isClosed else { return }
        // Reading stops while output is above the watermark; it may go on now.
        if lifecycle.isOpen { deferToEndOfIteration([.resume, .http2Check]) }
        writeDrained()
    }

    // MARK: Tunnel

    func startTunnel(for exchange: HTTPExchange, delegate: any TunnelDelegate) -> Tunnel? {
        let tunnel = Tunnel(connection: self)
        activity = .tunnel(tunnel, delegate, isPaused: false)
        exchange.ended()
        context.handler.exchangeDidEnd(exchange)
        context.loop.disarm(deadline)
        resumeReading()
        return tunnel
    }

    // MARK: Closing

    /// Ends the connection once the queued answer is out (see `Lifecycle`).
    func closeAfterFlush() {
        guard lifecycle.isOpen else { return }
        lifecycle = .flushing
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
        switch transport.shutdown() {
        case .wouldBlock:
            lifecycle = .closingTLS
            if deadlinePhase != .write { setDeadline(.write) }
            return
        case .failed:
            close()
            return
        case .transferred, .closed:
            break
        }
        guard input != .peerClosed else {
            close()
            return
        }
        _ = shutdown(fd, Int32(SHUT_WR))
        lifecycle = .lingering
        setDeadline(.linger)
        deferToEndOfIteration(.resume)
    }

    func close() {
        guard !isClosed else { return }
        let wasOpen = lifecycle.isOpen || lifecycle == .flushing
        lifecycle = .closed
        let ending = activity
        activity = .idle
        switch ending {
        case .exchange(let exchange):
            exchange.abort()
            context.handler.exchangeDidEnd(exchange)
        case .tunnel(let tunnel, let delegate, _):
            delegate.tunnelDidClose(tunnel)
        case .http2(let http2):
            http2.closeAll()
        case .idle:
            break
        }
        // An abrupt close still tells a TLS peer the session ended on purpose; a graceful one
        // already did.
        if wasOpen { _ = transport.shutdown() }
        context.loop.cancel(deadline)
        context.loop.deregister(fd)
        Glibc.close(fd)
        context.remove(self)
        context.shared.openConnections.add(-1)
    }

    /// Graceful shutdown: idle connections close now, busy ones after their current response.
    func drain() {
        if case .http2(let http2) = activity {
            http2.goAway()
            return
        }
        if isIdle {
            closeAfterFlush()
        } else {
            closeAfterResponse()
        }
    }

    var isIdle: Bool {
        switch activity {
        case .idle: true
        case .http2(let http2): !http2.hasOpenStreams
        case .exchange, .tunnel: false
        }
    }

    /// Abandoning an HTTP/1.1 exchange closes its connection.
    func abandon(_ exchange: HTTPExchange) { close() }
}
