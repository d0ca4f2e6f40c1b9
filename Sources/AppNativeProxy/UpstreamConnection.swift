import AppNativeHTTP
import AppNativeServer
internal import CAppNativeLinux
import Glibc

/// What an upstream connection reports to the exchange using it (loop-owned).
protocol UpstreamConnectionDelegate: AnyObject {
    func upstreamConnected(_ connection: UpstreamConnection)
    func upstream(_ connection: UpstreamConnection, received event: HTTPParserEvent<HTTPResponseHead>, in buffer: ArraySlice<UInt8>)
    func upstreamTunnelData(_ connection: UpstreamConnection, _ bytes: ArraySlice<UInt8>)
    func upstreamWritable(_ connection: UpstreamConnection)
    func upstream(_ connection: UpstreamConnection, failed failure: UpstreamFailure)
    /// The deadline the exchange armed (`arm(after:)`) passed.
    func upstreamDeadlinePassed(_ connection: UpstreamConnection)
}

/// Why an upstream connection ended an exchange early.
enum UpstreamFailure: Error {
    case connectFailed(Int32)
    /// Closed or reset before any response byte.
    case closedBeforeResponse
    /// Closed or reset in the middle of a response.
    case closedMidResponse
    case invalidResponse(HTTPParseError)
}

/// One keep-alive TCP connection to the upstream, owned by one loop.
final class UpstreamConnection: EventHandler, EndOfIterationWork, SocketReading {
    let fd: Int32
    /// The address dialled (one of the upstream's resolved addresses).
    let address: SocketAddress
    /// The addresses' generation `address` was last known to be listed in.
    var addressGeneration: UInt64
    private let transport: any ConnectionTransport
    private unowned let pool: UpstreamPool
    weak var delegate: (any UpstreamConnectionDelegate)?
    private var lifecycle = Lifecycle.connecting
    var isConnected: Bool { lifecycle == .open || lifecycle == .closingAfterFlush }
    var isClosed: Bool { lifecycle == .closed }

    /// Where the connection is in its life; `close()` is the only way to `.closed`.
    private enum Lifecycle {
        /// The non-blocking connect is under way; queued bytes wait for it.
        case connecting
        case open
        /// The last bytes (a tunnel's close frame) are being written; then it closes.
        case closingAfterFlush
        case closed
    }
    private var parser: HTTPResponseParser
    private var output = OutgoingBytes()
    private var isFlushScheduled = false
    private var writeDemand = WriteDemand.none
    private var isReadingPaused = false
    private(set) var hasReceivedResponseBytes = false
    /// Whether the TCP connect completed (before that, no byte of a request has left).
    private(set) var hasConnected = false
    /// HTTP messages, or raw bytes after a 101 (WebSocket tunnel).
    private var mode = Mode.http

    private enum Mode {
        case http
        case tunnel
    }
    /// Pending input kept while reading is paused mid-buffer.
    private var pending: [UInt8] = []
    var idleSince: UInt64 = 0
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
        parser = HTTPResponseParser()
    }

    // MARK: Exchange lifecycle

    /// Prepares for a new exchange (`method` decides whether the response has a body).
    func begin(method: String, delegate: any UpstreamConnectionDelegate) {
        self.delegate = delegate
        idleSince = 0
        pool.loop.disarm(deadline)
        hasReceivedResponseBytes = false
        parser.expectResponse(to: method)
    }

    /// Arms the exchange's deadline, `nanoseconds` from now (replacing any armed one).
    func arm(after nanoseconds: UInt64) {
        pool.loop.arm(deadline, at: pool.loop.nowNanoseconds + nanoseconds)
    }

    func disarm() {
        pool.loop.disarm(deadline)
    }

    /// Arms the idle expiry (the pool took the connection back at `idleSince`).
    func armIdleExpiry(at deadline: UInt64) {
        pool.loop.arm(self.deadline, at: deadline)
    }

    private func deadlinePassed() {
        if let delegate {
            delegate.upstreamDeadlinePassed(self)
        } else if idleSince != 0 {
            // Idle for the pool's whole idle timeout.
            close()
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

    /// The request bytes queued on a connection whose connect failed (none of them left), for
    /// the connection that retries on another address; empties this one's queue.
    func takeUnsentRequest() -> OutgoingBytes? {
        guard !hasConnected else { return nil }
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
        mode = .tunnel
    }

    // MARK: Events

    func handle(events: IOEvents) {
        if lifecycle == .connecting {
            guard !events.isDisjoint(with: [.writable, .error, .hangUp]) else { return }
            let error = appnative_socket_error(fd)
            if error != 0 {
                fail(.connectFailed(error))
                return
            }
            lifecycle = .open
            hasConnected = true
            delegate?.upstreamConnected(self)
            flush()
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
        let result = pool.scratch.withUnsafeMutableBytes { transport.receive(into: $0) }
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
        hasReceivedResponseBytes = true
        if mode == .tunnel {
            delegate?.upstreamTunnelData(self, bytes[range])
            return
        }
        guard delegate != nil else {
            // Bytes on an idle connection: the upstream is misbehaving; never reuse it.
            close()
            return
        }
        var position = range.lowerBound
        while !isClosed {
            if isReadingPaused {
                pending.append(contentsOf: bytes[position..<range.upperBound])
                return
            }
            if mode == .tunnel {
                if position < range.upperBound { delegate?.upstreamTunnelData(self, bytes[position..<range.upperBound]) }
                return
            }
            let start = position
            let step: (consumed: Int, event: HTTPParserEvent<HTTPResponseHead>?)
            switch parse(bytes, start..<range.upperBound) {
            case .success(let result): step = result
            case .failure(let error):
                fail(.invalidResponse(error))
                return
            }
            position += step.consumed
            if let event = step.event {
                delegate?.upstream(self, received: event, in: bytes[start..<range.upperBound])
                if parser.hasSwitchedProtocols { mode = .tunnel }
                continue
            }
            if step.consumed == 0 || position == range.upperBound { return }
        }
    }

    private func parse(_ bytes: [UInt8], _ range: Range<Int>)
        -> Result<(consumed: Int, event: HTTPParserEvent<HTTPResponseHead>?), HTTPParseError>
    {
        bytes.withUnsafeBytes { buffer in
            do throws(HTTPParseError) {
                return .success(try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[range])))
            } catch {
                return .failure(error)
            }
        }
    }

    private func endOfStream() {
        if mode == .tunnel || delegate == nil {
            let delegate = self.delegate
            close()
            if mode == .tunnel { delegate?.upstream(self, failed: .closedMidResponse) }
            return
        }
        do {
            if let event = try parser.finish() {
                delegate?.upstream(self, received: event, in: [])
                close()
                return
            }
        } catch {
            fail(hasReceivedResponseBytes ? .closedMidResponse : .closedBeforeResponse)
            return
        }
        fail(hasReceivedResponseBytes ? .closedMidResponse : .closedBeforeResponse)
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
            fail(hasReceivedResponseBytes ? .closedMidResponse : .closedBeforeResponse)
            return
        case .drained:
            break
        }
        if lifecycle == .closingAfterFlush {
            close()
            return
        }
        if writeDemand == .producerWaiting {
            writeDemand = .none
            delegate?.upstreamWritable(self)
        }
    }

    // MARK: Ending

    /// Whether the connection can carry another exchange.
    var isReusable: Bool { lifecycle == .open && mode == .http && output.isEmpty && pending.isEmpty && !parser.isDiscardingInput }

    /// Ends the exchange; returns the connection to the pool when it can be reused.
    func release(reusable: Bool) {
        delegate = nil
        if reusable && isReusable {
            pool.giveBack(self)
        } else {
            close()
        }
    }

    /// Closes once queued bytes are written (a tunnel's last frame), or at once if none are.
    func closeAfterFlush() {
        delegate = nil
        if lifecycle == .closingAfterFlush { return }
        guard lifecycle == .open, !output.isEmpty else {
            close()
            return
        }
        lifecycle = .closingAfterFlush
        scheduleFlush()
    }

    private func fail(_ failure: UpstreamFailure) {
        let delegate = self.delegate
        self.delegate = nil
        close()
        delegate?.upstream(self, failed: failure)
    }

    func close() {
        guard !isClosed else { return }
        lifecycle = .closed
        pool.loop.cancel(deadline)
        _ = transport.shutdown()
        pool.loop.deregister(fd)
        Glibc.close(fd)
        pool.connectionClosed(self)
    }
}
