import AppNativeHTTP
import AppNativeServer
internal import CAppNativeLinux
import Glibc

/// What an upstream connection reports to the exchange using it (loop-owned). The connection
/// is in its next state when it reports: the exchange may release, write or close it at once.
protocol UpstreamConnectionDelegate: AnyObject {
    /// One parser event of the response; body ranges index `buffer`. Apart from the other
    /// events: it is the hot path, and an event carried inside another enum is copied twice.
    func upstream(_ connection: UpstreamConnection, received event: HTTPParserEvent<HTTPResponseHead>, in buffer: ArraySlice<UInt8>)
    func upstream(_ connection: UpstreamConnection, _ event: UpstreamEvent)
}

/// What happened on an upstream connection, for the exchange using it.
enum UpstreamEvent {
    /// The TCP connect completed.
    case connected
    /// Raw bytes after a 101.
    case tunnelData(ArraySlice<UInt8>)
    /// Queued request bytes drained below the low watermark.
    case writable
    /// The connection closed or failed; it is closed already.
    case failed(UpstreamFailure)
    /// The deadline the exchange armed (`arm(after:)`) passed.
    case deadlinePassed
}

/// Why an upstream connection ended an exchange early.
enum UpstreamFailure: Error, Equatable {
    case connectFailed(Int32)
    /// Closed or reset before any response byte.
    case closedBeforeResponse
    /// Closed or reset in the middle of a response.
    case closedMidResponse
    case invalidResponse(HTTPParseError)
}

/// One keep-alive TCP connection to the upstream, owned by one loop.
final class UpstreamConnection: EventHandler, EndOfIterationWork, DialledConnection, SocketReading {
    let fd: Int32
    /// The address dialled (one of the upstream's resolved addresses).
    let address: SocketAddress
    /// The addresses' generation `address` was last known to be listed in.
    var addressGeneration: UInt64
    private let transport: any ConnectionTransport
    private unowned let pool: UpstreamPool
    weak var delegate: (any UpstreamConnectionDelegate)?
    /// The connection's protocol state (connecting, serving, idle, tunnel, closing); every
    /// change goes through it.
    private var state = UpstreamConnectionState()
    /// The current exchange's response framing (the request's method decides whether it has a
    /// body) and what is left of its bytes.
    private var parser = HTTPResponseParser()
    var isConnected: Bool { state.isConnected }
    var isClosed: Bool { state.isClosed }
    private var output = OutgoingBytes()
    private var isFlushScheduled = false
    private var writeDemand = WriteDemand.none
    private var isReadingPaused = false
    /// Pending input kept while reading is paused mid-buffer.
    private var pending: [UInt8] = []
    /// The exchange's connect or response deadline while it has a delegate, the pool's idle
    /// expiry while it is idle: one timer on the loop's heap for the connection's life. Unowned:
    /// the loop's registration keeps the connection alive until `close()`, which takes the timer
    /// out of the heap (a weak reference would give the connection a side table, and every
    /// retain of it the slow path).
    private lazy var deadline = pool.loop.makeTimer { [unowned self] in self.deadlinePassed() }

    init(fd: Int32, address: SocketAddress, transport: any ConnectionTransport, pool: UpstreamPool) {
        self.fd = fd
        self.address = address
        addressGeneration = pool.addresses.generation
        self.transport = transport
        self.pool = pool
    }

    // MARK: Exchange lifecycle

    /// Prepares for a new exchange (`method` decides whether the response has a body).
    func begin(method: String, delegate: any UpstreamConnectionDelegate) {
        self.delegate = delegate
        pool.loop.disarm(deadline)
        parser.expectResponse(to: method)
        state.begin()
    }

    /// Arms the exchange's deadline, `nanoseconds` from now (replacing any armed one).
    func arm(after nanoseconds: UInt64) {
        pool.loop.arm(deadline, at: pool.loop.nowNanoseconds + nanoseconds)
    }

    func disarm() {
        pool.loop.disarm(deadline)
    }

    /// The pool kept the connection idle; it closes at `expiry` unless an exchange takes it.
    func becameIdle(until expiry: UInt64) {
        state.becameIdle(at: pool.loop.nowNanoseconds)
        pool.loop.arm(deadline, at: expiry)
    }

    private func deadlinePassed() {
        switch state.deadlinePassed() {
        case .tellExchange: delegate?.upstream(self, .deadlinePassed)
        case .close: closeSocket()  // idle for the pool's whole idle timeout
        case .none: break
        }
    }

    var isBelowWatermark: Bool { output.pendingCount < pool.configuration.writeHighWatermark }

    func write(_ bytes: ArraySlice<UInt8>) {
        guard !isClosed else { return }
        output.append(bytes)
        scheduleFlush()
    }

    func write(_ bytes: [UInt8]) {
        write(bytes[...])
    }

    /// Queues a request head, serialised in place.
    func writeHead(_ head: HTTPRequestHead) {
        guard !isClosed else { return }
        output.appendRequestHead(head)
        scheduleFlush()
    }

    func writeChunk(_ bytes: ArraySlice<UInt8>) {
        guard !isClosed, !bytes.isEmpty else { return }
        output.appendChunk(bytes)
        scheduleFlush()
    }

    func writeLastChunk(trailers: HTTPHeaders?) {
        guard !isClosed else { return }
        output.appendLastChunk(trailers: trailers)
        scheduleFlush()
    }

    func pauseReading() { isReadingPaused = true }

    /// The request bytes queued on a connection whose connect failed (none of them left: the
    /// exchange asks only while its connection is still connecting), for the connection that
    /// retries on another address; empties this one's queue.
    func takeUnsentRequest() -> OutgoingBytes {
        let unsent = output
        output = OutgoingBytes()
        return unsent
    }

    /// Queues `unsent` (taken from a connection whose connect failed) before anything else.
    func adoptUnsentRequest(_ unsent: OutgoingBytes) {
        guard !isClosed else { return }
        output = unsent
        scheduleFlush()
    }

    func resumeReading() {
        guard isReadingPaused else { return }
        isReadingPaused = false
        pool.loop.runAtEndOfIteration { [weak self] in
            guard let self, !self.isClosed else { return }
            self.drainPending()
            self.readFromSocket()
        }
    }

    /// Raw byte mode after a 101 (WebSocket tunnel).
    func startTunnel() {
        state.startTunnel()
    }

    // MARK: Events

    func handle(events: IOEvents) {
        if case .connecting = state.phase {
            guard !events.isDisjoint(with: [.writable, .error, .hangUp]) else { return }
            switch state.connectCompleted(error: appnative_socket_error(fd)) {
            case .fail(let failure):
                let delegate = self.delegate
                self.delegate = nil
                closeSocket()
                delegate?.upstream(self, .failed(failure))
                return
            case .connected:
                delegate?.upstream(self, .connected)
                flush()
            case .none:
                break
            }
        }
        if events.contains(.writable) { flush() }
        if !events.isDisjoint(with: SocketReader.inputEvents) {
            reader = reader.afterReadiness(events)
            readFromSocket()
        }
    }

    /// The shared read loop's state (see `SocketReader`).
    private var reader = SocketReader()

    var socketMayHaveInput: Bool { reader.mayHaveInput }

    var wantsInput: Bool { !isClosed && !isReadingPaused }

    func receiveIntoBuffer() -> TransportResult {
        // unsafe: the transport writes at most the scratch buffer's count bytes into it, inside the closure.
        let result = unsafe pool.scratch.withUnsafeMutableBytes { unsafe transport.receive(into: $0) }
        let bufferSize = pool.scratch.count
        let shortReadDrainsSocket = transport.shortReadDrainsSocket
        reader = reader.afterRead(result, bufferSize: bufferSize, shortReadDrainsSocket: shortReadDrainsSocket)
        return result
    }

    func received(count: Int) { process(pool.scratch, 0..<count) }

    private func readFromSocket() {
        switch readAvailable() {
        case .stopped: break
        // TLS may be waiting to write (handshake): give queued output a chance.
        case .wouldBlock: flush()
        case .closed, .failed: endOfStream()
        }
    }

    private func drainPending() {
        guard !pending.isEmpty else { return }
        let bytes = pending
        pending = []
        process(bytes, 0..<bytes.count)
    }

    /// Parses `bytes[range]`. `bytes` is a copy of the buffer's reference: slices handed to the
    /// delegate are views of it, never of storage that is reused while they live.
    private func process(_ bytes: [UInt8], _ range: Range<Int>) {
        switch state.received() {
        case .parse: break
        case .tunnel:
            delegate?.upstream(self, .tunnelData(bytes[range]))
            return
        case .close:
            close()
            return
        case .discard:
            return
        }
        var position = range.lowerBound
        while !isClosed {
            if isReadingPaused {
                pending.append(contentsOf: bytes[position..<range.upperBound])
                return
            }
            if state.isTunnel {
                if position < range.upperBound { delegate?.upstream(self, .tunnelData(bytes[position..<range.upperBound])) }
                return
            }
            let start = position
            let step: (consumed: Int, event: HTTPParserEvent<HTTPResponseHead>?)
            switch parser.parse(bytes, in: start..<range.upperBound) {
            case .success(let result): step = result
            case .failure(let error):
                fail(.invalidResponse(error))
                return
            }
            position += step.consumed
            if let event = step.event {
                if parser.hasSwitchedProtocols { state.startTunnel() }
                delegate?.upstream(self, received: event, in: bytes[start..<range.upperBound])
                continue
            }
            if step.consumed == 0 || position == range.upperBound { return }
        }
    }


    private func endOfStream() {
        let delegate = self.delegate
        self.delegate = nil
        switch state.endOfStream() {
        case .close(let failure):
            closeSocket()
            if let failure { delegate?.upstream(self, .failed(failure)) }
        case .finishResponse(let failure):
            closeSocket()
            if let event = try? parser.finish() {
                delegate?.upstream(self, received: event, in: [])
            } else {
                delegate?.upstream(self, .failed(failure))
            }
        case .none:
            break
        }
    }

    // MARK: Writing

    private func scheduleFlush() {
        writeDemand = writeDemand.afterQueuing(pendingCount: output.pendingCount, highWatermark: pool.configuration.writeHighWatermark)
        guard !isFlushScheduled else { return }
        isFlushScheduled = true
        pool.loop.runAtEndOfIteration(self)
    }

    /// The scheduled flush (no closure or weak reference per request).
    func runEndOfIterationWork() {
        isFlushScheduled = false
        flush()
    }

    private func flush() {
        guard isConnected, !isClosed else { return }
        switch output.drain(to: transport) {
        case .blocked:
            return
        case .failed:
            failWriting()
            return
        case .drained:
            break
        }
        if state.drained() {
            closeSocket()
            return
        }
        if writeDemand == .producerWaiting {
            writeDemand = .none
            delegate?.upstream(self, .writable)
        }
    }

    // MARK: Ending

    /// Whether the connection can carry another exchange.
    var isReusable: Bool { state.isReusable(isDrained: isDrained) }

    /// Nothing of the last exchange is left: no bytes queued either way, and the parser is not
    /// discarding the rest of a response that closes the connection.
    private var isDrained: Bool { output.isEmpty && pending.isEmpty && !parser.isDiscardingInput }

    /// Ends the exchange; returns the connection to the pool when it can be reused.
    func release(reusable: Bool) {
        delegate = nil
        switch state.release(reusable: reusable, isDrained: isDrained) {
        case .giveBack: pool.giveBack(self)
        case .close: closeSocket()
        case .none: break
        }
    }

    /// Closes once queued bytes are written (a tunnel's last frame), or at once if none are.
    func closeAfterFlush() {
        delegate = nil
        switch state.closeAfterFlush(hasQueuedBytes: !output.isEmpty) {
        case .close: closeSocket()
        case .giveBack, .none: scheduleFlush()
        }
    }

    /// The response could not be parsed: close and tell the exchange.
    private func fail(_ failure: UpstreamFailure) {
        let delegate = self.delegate
        self.delegate = nil
        guard state.close() else { return }
        closeSocket()
        delegate?.upstream(self, .failed(failure))
    }

    /// Writing failed: close and tell the exchange, if one is using the connection.
    private func failWriting() {
        let delegate = self.delegate
        self.delegate = nil
        switch state.failed() {
        case .close(let failure):
            closeSocket()
            if let failure { delegate?.upstream(self, .failed(failure)) }
        case .finishResponse, .none:
            break
        }
    }

    func close() {
        guard state.close() else { return }
        closeSocket()
    }

    /// The socket's end, once the state is `.closed`.
    private func closeSocket() {
        pool.loop.cancel(deadline)
        _ = transport.shutdown()
        pool.loop.deregister(fd)
        Glibc.close(fd)
        pool.connectionClosed(self)
    }
}
