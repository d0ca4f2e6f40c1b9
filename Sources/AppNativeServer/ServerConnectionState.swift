import AppNativeHTTP

/// What the connection state needs to know of the exchange it serves; `HTTPExchange` owns these
/// facts (the machine reads them, never copies them), tests supply a fake.
protocol ServedExchange: AnyObject {
    var requestBody: HTTPExchange.RequestBodyState { get }
    var hasResponseStarted: Bool { get }
    var isResponseFinished: Bool { get }
    var isAborted: Bool { get }
}

extension HTTPExchange: ServedExchange {}

/// The protocol state of one client connection as a value: events go in, the action the I/O
/// shell (`ServerConnection`) performs comes out. No I/O, no callbacks: each method finishes its
/// transition before the shell acts, so nothing a handler does in reaction re-enters it halfway.
///
/// Generic over what it serves so tests drive it with fakes; the server specialises it with
/// `HTTPExchange`, `ServerConnection.TunnelEnd` and `HTTP2Connection`. It never calls into the
/// HTTP/2 session (the shell passes what it needs to know as facts): a call into libnghttp2
/// inside a transition would cost every access to the shell's state a dynamic exclusivity check.
///
/// HTTP/1.1 requests are served one at a time: a pipelined next request waits in the shell's
/// buffer until the current response is finished, so responses leave in request order
/// (RFC 9112 §9.3.2). Closing follows RFC 9112 §9.6 (see `Lifecycle`).
struct ServerConnectionState<Exchange: ServedExchange, Tunnel, HTTP2: AnyObject> {
    /// What a deadline guards.
    enum DeadlinePhase: Equatable {
        /// Between requests.
        case keepAlive
        /// A request head is arriving.
        case head
        /// A request body the handler asked for is arriving (idle time between reads).
        case body
        /// Queued output waits for the client to read.
        case write
        /// Our side is shut; waiting for the peer's close.
        case linger
    }

    /// The connection's one timer.
    enum Deadline: Equatable {
        case armed(DeadlinePhase)
        /// No timer runs; the phase decides what the next read arms (`keepAlive`: the head's,
        /// `body`: the body's again).
        case disarmed(DeadlinePhase)

        var phase: DeadlinePhase {
            switch self {
            case .armed(let phase), .disarmed(let phase): phase
            }
        }
    }

    /// What the shell does with the timer along with an action.
    enum DeadlineChange: Equatable {
        case keep
        case arm(DeadlinePhase)
        case disarm
    }

    enum TunnelFlow: Equatable {
        case flowing
        /// The tunnel's owner paused it: the client is not read.
        case paused
    }

    /// What the connection serves.
    enum Activity {
        /// HTTP/2 is on and the first bytes decide the protocol (ALPN over TLS, the connection
        /// preface on cleartext); HTTP/1.1 rules apply meanwhile.
        case choosingProtocol
        /// HTTP/1.1 between requests.
        case idle
        /// One HTTP/1.1 exchange.
        case exchange(Exchange)
        /// After a 101: raw bytes to the tunnel's owner.
        case tunnel(Tunnel, TunnelFlow)
        /// HTTP/2: the session and its streams get every byte.
        case http2(HTTP2)
    }

    /// Where the connection is in its life. The answer leaves first, then the TLS close_notify
    /// and our FIN, then input is read and dropped until the peer closes too: closing with
    /// unread input (a body the answer made unnecessary, a pipelined request after
    /// `Connection: close`) would make the kernel send a reset, and a reset destroys whatever of
    /// the answer the client had not read yet (over TLS, all of it).
    enum Lifecycle: Equatable {
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

    /// What is torn down when the connection (or the client's side of it) ends.
    enum Ending {
        case nothing
        /// Abort it and report its end to the handler.
        case exchange(Exchange)
        /// Tell the tunnel's owner the client side closed.
        case tunnel(Tunnel)
        /// Close every stream.
        case http2(HTTP2)
    }

    enum Action {
        case none
        /// Hand the exchange to the handler.
        case serve(Exchange)
        /// The exchange ended: release it, report it; then keep the connection for the next
        /// request (reading on) or close it once the output is out.
        case endExchange(Exchange, then: AfterExchange)
        /// Answer with an error status of the server's own, then close after it; an exchange
        /// whose response has not started is aborted first.
        case sendError(status: Int, aborting: Exchange?)
        /// Abort the exchange, then close at once (its response had started: nothing can be
        /// answered any more).
        case abortAndClose(Exchange)
        /// Continue with buffered input, then the socket.
        case resumeReading
        /// Write `100 Continue` (the client waits for it), then read the body.
        case continueAndResumeReading
        /// Tear down what was served, then close once the output is out.
        case closeAfterFlush(Ending)
        /// Close at once.
        case close
        /// Send GOAWAY, then close once it is out.
        case goAwayAndCloseAfterFlush(HTTP2)
        /// Send GOAWAY; in-flight streams finish.
        case goAway(HTTP2)
        /// The exchange became a tunnel: release it, report it, read the tunnel's bytes.
        case endExchangeForTunnel(Exchange)
        /// Tell the producer (exchange or tunnel owner) that the output drained.
        case producerMayWrite(Producer)
        /// Send the close_notify and FIN now (the output is empty).
        case shutDownOutput
        /// Shut our sending side and linger for the peer's close.
        case linger
    }

    enum AfterExchange {
        case keepAlive
        case closeAfterFlush
    }

    enum Producer {
        case exchange(Exchange)
        case tunnel(Tunnel)
    }

    /// One transition's effects: the timer first, then the action.
    struct Step {
        var deadline: DeadlineChange
        var action: Action

        static var nothing: Step { Step(deadline: .keep, action: .none) }
    }

    /// What happens to bytes that just arrived.
    enum Arrival: Equatable {
        /// The connection is closing: they are read only so they never turn into a reset.
        case drop
        /// Parse them; arm the head or body deadline first when one applies.
        case consume(DeadlineChange)
    }

    /// Where parsed input goes now.
    enum InputRoute {
        /// The first bytes decide the protocol (`choseHTTP1`, `startedHTTP2`).
        case chooseProtocol
        case http2(HTTP2)
        case tunnel(Tunnel)
        /// The HTTP/1.1 parser runs.
        case parse
        /// Input waits in the buffer (the exchange does not read its body now, or the connection
        /// is closing).
        case hold
    }

    /// What the `Connection` field of a response head says.
    enum ConnectionField: Equatable {
        case unchanged
        case close
        /// An HTTP/1.0 client is told the connection stays.
        case keepAlive
    }

    /// The transport's answer to the close_notify.
    enum ShutdownResult: Equatable {
        case done
        case wouldBlock
        case failed
    }

    private(set) var activity: Activity
    private(set) var lifecycle = Lifecycle.open
    /// Set by every transition that changes the timer; the shell applies the `DeadlineChange`.
    private(set) var deadline = Deadline.armed(.keepAlive)

    /// - Parameter choosesProtocol: HTTP/2 is on, so the first bytes decide the protocol.
    init(choosesProtocol: Bool) {
        activity = choosesProtocol ? .choosingProtocol : .idle
    }

    var isClosed: Bool { lifecycle == .closed }
    var isOpen: Bool { lifecycle.isOpen }

    var exchange: Exchange? {
        if case .exchange(let exchange) = activity { return exchange }
        return nil
    }

    var isHTTP2: Bool {
        if case .http2 = activity { return true }
        return false
    }

    /// Whether the protocol is still to be chosen.
    var isChoosingProtocol: Bool {
        if case .choosingProtocol = activity { return true }
        return false
    }

    /// Whether the socket is read now. `bufferedInput`: bytes read and not parsed yet, which
    /// stop reading above `maxBufferedInput` (backpressure into TCP); `outputBelowWatermark`:
    /// an HTTP/2 client that does not read what it causes (acknowledgements, answers) is not
    /// read either (flow control bounds its request bodies).
    func wantsToRead(bufferedInput: Int, outputBelowWatermark: Bool) -> Bool {
        switch lifecycle {
        case .closed: return false
        // A closing connection reads only to drop what arrives.
        case .flushing, .closingTLS, .lingering: return true
        case .open, .lastResponse: break
        }
        switch activity {
        case .tunnel(_, let flow):
            return flow == .flowing
        case .exchange(let exchange):
            // Hold the socket while the handler has not asked for the body or paused it; the
            // kernel's buffers then push back on the client.
            if exchange.requestBody == .unread || exchange.requestBody == .paused { return false }
        case .http2:
            return outputBelowWatermark
        case .idle, .choosingProtocol:
            break
        }
        return bufferedInput <= Self.maxBufferedInput
    }

    /// Buffered pipelined input above which reading stops.
    static var maxBufferedInput: Int { 256 * 1024 }

    /// Bytes arrived from the socket.
    mutating func bytesArrived() -> Arrival {
        guard lifecycle.isOpen else { return .drop }
        if case .http2 = activity { return .consume(.keep) }
        switch deadline.phase {
        case .keepAlive:
            deadline = .armed(.head)
            return .consume(.arm(.head))
        case .body:
            deadline = .armed(.body)
            return .consume(.arm(.body))
        case .head, .write, .linger:
            return .consume(.keep)
        }
    }

    /// Where input goes; `hasInput`: unparsed bytes are left.
    func route(hasInput: Bool) -> InputRoute {
        guard lifecycle.isOpen else { return .hold }
        switch activity {
        case .http2(let http2): return .http2(http2)
        case .tunnel(let tunnel, _): return .tunnel(tunnel)
        case .exchange(let exchange): return exchange.requestBody == .reading ? .parse : .hold
        case .choosingProtocol: return .chooseProtocol
        case .idle: return hasInput ? .parse : .hold
        }
    }

    /// Whether a paused body may still owe its end (the last chunk came before the pause): the
    /// parser then runs on empty input to produce it.
    var owesBodyEnd: Bool {
        guard let exchange else { return false }
        return exchange.requestBody != .complete
    }

    // MARK: Protocol choice

    /// The first bytes chose HTTP/1.1.
    mutating func choseHTTP1() {
        if case .choosingProtocol = activity { activity = .idle }
    }

    /// The first bytes chose HTTP/2 and the session is ready.
    mutating func startedHTTP2(_ http2: HTTP2, draining: Bool) -> Step {
        guard case .choosingProtocol = activity else { return .nothing }
        activity = .http2(http2)
        return Step(deadline: .keep, action: draining ? .goAway(http2) : .none)
    }

    // MARK: HTTP/1.1 exchanges

    /// A request head was parsed and its exchange made.
    mutating func requestStarted(_ exchange: Exchange, keepAlive: Bool, draining: Bool) -> Step {
        // A head is parsed only between exchanges (see `route`).
        guard case .idle = activity else { return .nothing }
        if !keepAlive || draining { closeAfterResponse() }
        activity = .exchange(exchange)
        deadline = .disarmed(deadline.phase)
        return Step(deadline: .disarm, action: .serve(exchange))
    }

    /// The current response is the last on this connection.
    mutating func closeAfterResponse() {
        if lifecycle == .open { lifecycle = .lastResponse }
    }

    /// The handler asked for the request body.
    mutating func bodyRequested(by exchange: Exchange, sendsContinue: Bool) -> Step {
        guard exchange === self.exchange, exchange.requestBody != .complete else { return .nothing }
        deadline = .armed(.body)
        let expectsContinue = sendsContinue && !exchange.hasResponseStarted
        return Step(deadline: .arm(.body), action: expectsContinue ? .continueAndResumeReading : .resumeReading)
    }

    /// The handler resumed a paused body.
    mutating func bodyResumed(by exchange: Exchange) -> Step {
        guard exchange === self.exchange else { return .nothing }
        return Step(deadline: .keep, action: .resumeReading)
    }

    /// The parser delivered the end of the body (the exchange has been told).
    mutating func bodyEnded() -> Step {
        guard let exchange, exchange.isResponseFinished else { return .nothing }
        return completeExchange()
    }

    /// The handler finished its response.
    mutating func exchangeFinished(_ exchange: Exchange) -> Step {
        guard exchange === self.exchange else { return .nothing }
        switch exchange.requestBody {
        case .complete:
            return completeExchange()
        case .unread:
            // The handler answered without reading the body: closing is cheaper and safer than
            // draining an unknown amount of it.
            closeAfterResponse()
            return completeExchange()
        case .reading, .paused:
            if exchange.isAborted {
                closeAfterResponse()
                return completeExchange()
            }
            // The body is still arriving; its end completes the exchange.
            return .nothing
        }
    }

    private mutating func completeExchange() -> Step {
        guard let exchange else { return .nothing }
        activity = .idle
        if lifecycle == .lastResponse {
            return Step(deadline: .keep, action: .endExchange(exchange, then: .closeAfterFlush))
        }
        deadline = .armed(.keepAlive)
        return Step(deadline: .arm(.keepAlive), action: .endExchange(exchange, then: .keepAlive))
    }

    /// A response head is going out: what its `Connection` field says.
    mutating func responseHeadLeaving(isHTTP10: Bool, draining: Bool) -> ConnectionField {
        if draining { closeAfterResponse() }
        if lifecycle == .lastResponse { return .close }
        return isHTTP10 ? .keepAlive : .unchanged
    }

    /// The request could not be parsed.
    mutating func parseFailed(status: Int) -> Step {
        if let exchange {
            if exchange.hasResponseStarted { return Step(deadline: .keep, action: .abortAndClose(exchange)) }
            activity = .idle
            closeAfterResponse()
            return Step(deadline: .keep, action: .sendError(status: status, aborting: exchange))
        }
        closeAfterResponse()
        return Step(deadline: .keep, action: .sendError(status: status, aborting: nil))
    }

    // MARK: Tunnel

    /// A 101 turned the exchange's connection into a tunnel; the exchange is over.
    mutating func tunnelStarted(_ tunnel: Tunnel, by exchange: Exchange) -> Step {
        guard case .exchange(let current) = activity, current === exchange else { return .nothing }
        let served = replaceActivity(with: .tunnel(tunnel, .flowing))
        guard case .exchange(let ended) = served else { return .nothing }
        deadline = .disarmed(deadline.phase)
        return Step(deadline: .disarm, action: .endExchangeForTunnel(ended))
    }

    /// The tunnel's owner paused it. Returns the replaced activity (see `replaceActivity`).
    @discardableResult
    mutating func tunnelPaused() -> Activity? {
        guard case .tunnel(let tunnel, _) = activity else { return nil }
        return replaceActivity(with: .tunnel(tunnel, .paused))
    }

    /// The tunnel's owner resumed it. The step carries the replaced activity away (see
    /// `replaceActivity`).
    mutating func tunnelResumed() -> (step: Step, replaced: Activity?) {
        guard case .tunnel(let tunnel, let flow) = activity else { return (.nothing, nil) }
        let replaced = replaceActivity(with: .tunnel(tunnel, .flowing))
        return (flow == .paused ? Step(deadline: .keep, action: .resumeReading) : .nothing, replaced)
    }

    /// Swaps in `next` and hands back what it replaced, so the caller releases that value after
    /// the transition: a release may run a delegate's deinit, and unknown code inside an access
    /// to the shell's state would cost every access to it a dynamic exclusivity check.
    private mutating func replaceActivity(with next: Activity) -> Activity {
        var replaced = next
        swap(&activity, &replaced)
        return replaced
    }

    // MARK: HTTP/2

    /// After the session's calls (streams opened or ended, the session ended): its deadline and
    /// whether the connection is done. The shell reads `session`'s facts before the transition
    /// (they call into libnghttp2, which must not run inside it).
    mutating func http2Changed(_ session: HTTP2Facts) -> Step {
        guard case .http2 = activity, lifecycle.isOpen else { return .nothing }
        if session.isFinished { return Step(deadline: .keep, action: .closeAfterFlush(.nothing)) }
        if deadline.phase == .write { return .nothing }
        if session.hasOpenStreams {
            // Streams are bounded by flow control and their handlers' own timeouts.
            guard case .armed(let phase) = deadline else { return .nothing }
            deadline = .disarmed(phase)
            return Step(deadline: .disarm, action: .none)
        }
        deadline = .armed(.keepAlive)
        return Step(deadline: .arm(.keepAlive), action: .none)
    }

    /// What `http2Changed` needs to know of the session.
    struct HTTP2Facts {
        var isFinished: Bool
        var hasOpenStreams: Bool
    }

    /// Whether the HTTP/2 session may still produce output (open, or flushing its last frames).
    var producesHTTP2Output: Bool { lifecycle.isOpen || lifecycle == .flushing }

    // MARK: Writing

    /// The socket took less than was queued; `progressed`: some bytes left.
    mutating func writeBlocked(progressed: Bool) -> DeadlineChange {
        // A client that stops reading hits the write timeout.
        if progressed || deadline != .armed(.write) {
            deadline = .armed(.write)
            return .arm(.write)
        }
        return .keep
    }

    /// Where the shell's output goes.
    enum Writer {
        case closed
        /// HTTP/1.1 (or the protocol is being chosen): the queued bytes as they are.
        case http1
        /// The session produces frames into the output first.
        case http2(HTTP2)
    }

    var writer: Writer {
        if lifecycle == .closed { return .closed }
        if case .http2(let http2) = activity { return .http2(http2) }
        return .http1
    }

    /// The output drained: the write deadline ends, a closing connection shuts down, and a
    /// producer that waited hears of it. `demand`: the shell's write demand (kept there, beside
    /// the output queue it follows), answered here: the shell keeps the demand returned;
    /// `http2HasOpenStreams`: the session's streams, read by the shell (see `http2Changed`).
    mutating func writeDrained(demand: WriteDemand, http2HasOpenStreams: Bool = false) -> (step: Step, demand: WriteDemand) {
        // `if case` without a payload copy: a switch over every case copies the tunnel's
        // delegate, and releasing it here would count as unknown code inside the shell's access.
        let hasActiveWork: Bool
        if case .idle = activity {
            hasActiveWork = false
        } else if case .choosingProtocol = activity {
            hasActiveWork = false
        } else if case .http2 = activity {
            hasActiveWork = http2HasOpenStreams
        } else {
            hasActiveWork = true
        }
        var change = DeadlineChange.keep
        if deadline.phase == .write {
            if hasActiveWork {
                deadline = .disarmed(.body)
                change = .disarm
            } else {
                deadline = .armed(.keepAlive)
                change = .arm(.keepAlive)
            }
        }
        if lifecycle == .flushing { return (Step(deadline: change, action: .shutDownOutput), demand) }
        guard demand == .producerWaiting else { return (Step(deadline: change, action: .none), demand) }
        if case .exchange(let exchange) = activity {
            return (Step(deadline: change, action: .producerMayWrite(.exchange(exchange))), .none)
        }
        if case .tunnel(let tunnel, _) = activity {
            return (Step(deadline: change, action: .producerMayWrite(.tunnel(tunnel))), .none)
        }
        return (Step(deadline: change, action: .none), .none)
    }

    // MARK: Closing

    /// Ends the connection once the queued answer is out; false when it is closing already.
    mutating func closeAfterFlush() -> Bool {
        guard lifecycle.isOpen else { return false }
        lifecycle = .flushing
        return true
    }

    /// The transport's answer to the close_notify; `peerClosed`: the peer's FIN was read.
    mutating func outputShutDown(_ result: ShutdownResult, peerClosed: Bool) -> Step {
        switch result {
        case .wouldBlock:
            lifecycle = .closingTLS
            guard deadline.phase != .write else { return .nothing }
            deadline = .armed(.write)
            return Step(deadline: .arm(.write), action: .none)
        case .failed:
            return Step(deadline: .keep, action: .close)
        case .done:
            if peerClosed { return Step(deadline: .keep, action: .close) }
            lifecycle = .lingering
            deadline = .armed(.linger)
            return Step(deadline: .arm(.linger), action: .linger)
        }
    }

    /// The socket became writable.
    var writableShutsDown: Bool { lifecycle == .closingTLS }

    /// The peer's FIN was read (recv returned 0).
    mutating func peerClosed() -> Step {
        switch lifecycle {
        case .lingering:
            return Step(deadline: .keep, action: .close)
        case .flushing, .closingTLS, .closed:
            // The peer shut its sending side; it may still read the answer being written.
            return .nothing
        case .open, .lastResponse:
            break
        }
        switch activity {
        case .tunnel(let tunnel, _):
            activity = .idle
            return Step(deadline: .keep, action: .closeAfterFlush(.tunnel(tunnel)))
        case .exchange(let exchange):
            guard exchange.requestBody != .complete || !exchange.isResponseFinished else {
                return Step(deadline: .keep, action: .closeAfterFlush(.nothing))
            }
            // A half-closed client that already sent its whole request may still read the
            // answer, but HTTP/1.1 clients do not half-close; treat it as gone.
            activity = .idle
            return Step(deadline: .keep, action: .closeAfterFlush(.exchange(exchange)))
        case .http2(let http2):
            // Without its input an HTTP/2 session cannot go on (no window updates, no acks).
            return Step(deadline: .keep, action: .closeAfterFlush(.http2(http2)))
        case .idle, .choosingProtocol:
            return Step(deadline: .keep, action: .closeAfterFlush(.nothing))
        }
    }

    /// The deadline passed.
    mutating func deadlinePassed() -> Step {
        // The timer fired: it runs no more until armed again.
        deadline = .disarmed(deadline.phase)
        if case .http2(let http2) = activity {
            // Idle: GOAWAY first, so the client knows no stream was lost.
            if deadline.phase == .keepAlive && lifecycle.isOpen {
                return Step(deadline: .keep, action: .goAwayAndCloseAfterFlush(http2))
            }
            return Step(deadline: .keep, action: .close)
        }
        switch deadline.phase {
        case .keepAlive, .linger:
            return Step(deadline: .keep, action: .close)
        case .write:
            guard let exchange else { return Step(deadline: .keep, action: .close) }
            return Step(deadline: .keep, action: .abortAndClose(exchange))
        case .head:
            return Step(deadline: .keep, action: .sendError(status: 408, aborting: nil))
        case .body:
            guard let exchange else { return Step(deadline: .keep, action: .close) }
            if exchange.hasResponseStarted { return Step(deadline: .keep, action: .abortAndClose(exchange)) }
            activity = .idle
            return Step(deadline: .keep, action: .sendError(status: 408, aborting: exchange))
        }
    }

    /// Graceful shutdown: idle connections close now, busy ones after their current response,
    /// HTTP/2 sends GOAWAY and lets its streams finish.
    mutating func drain() -> Step {
        if case .http2(let http2) = activity { return Step(deadline: .keep, action: .goAway(http2)) }
        if case .idle = activity { return Step(deadline: .keep, action: .closeAfterFlush(.nothing)) }
        if case .choosingProtocol = activity { return Step(deadline: .keep, action: .closeAfterFlush(.nothing)) }
        // An exchange or a tunnel.
        closeAfterResponse()
        return .nothing
    }

    /// Closes now. Returns what to tear down and whether the TLS close_notify is still owed (an
    /// abrupt close still tells a TLS peer the session ended on purpose; a graceful one already
    /// did); nil when already closed.
    mutating func close() -> (ending: Ending, owesCloseNotify: Bool)? {
        guard lifecycle != .closed else { return nil }
        let owesCloseNotify = lifecycle.isOpen || lifecycle == .flushing
        lifecycle = .closed
        let ending: Ending
        switch activity {
        case .exchange(let exchange): ending = .exchange(exchange)
        case .tunnel(let tunnel, _): ending = .tunnel(tunnel)
        case .http2(let http2): ending = .http2(http2)
        case .idle, .choosingProtocol: ending = .nothing
        }
        activity = .idle
        return (ending, owesCloseNotify)
    }
}

extension ServerConnectionState.Ending: Equatable where Exchange: Equatable, Tunnel: Equatable, HTTP2: Equatable {}
extension ServerConnectionState.Producer: Equatable where Exchange: Equatable, Tunnel: Equatable {}
extension ServerConnectionState.AfterExchange: Equatable {}
extension ServerConnectionState.Action: Equatable where Exchange: Equatable, Tunnel: Equatable, HTTP2: Equatable {}
extension ServerConnectionState.Step: Equatable where Exchange: Equatable, Tunnel: Equatable, HTTP2: Equatable {}
extension ServerConnectionState.InputRoute: Equatable where Tunnel: Equatable, HTTP2: Equatable {}
