import AppNativeHTTP
import AppNativeServer
internal import CAppNativeLinux
import Glibc

/// What an upstream connection reports to the exchange using it (loop-owned).
protocol UpstreamConnectionDelegate: AnyObject {
    func upstreamConnected(_ connection: UpstreamConnection)
    func upstream(_ connection: UpstreamConnection, received event: HTTPParserEvent<HTTPResponseHead>, in buffer: UnsafeRawBufferPointer)
    func upstreamTunnelData(_ connection: UpstreamConnection, _ bytes: UnsafeRawBufferPointer)
    func upstreamWritable(_ connection: UpstreamConnection)
    func upstream(_ connection: UpstreamConnection, failed failure: UpstreamFailure)
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
final class UpstreamConnection: EventHandler, EndOfIterationWork {
    let fd: Int32
    private let transport: any ConnectionTransport
    private unowned let pool: UpstreamPool
    weak var delegate: (any UpstreamConnectionDelegate)?
    private(set) var isConnected = false
    private(set) var isClosed = false
    /// Whether this connection already served an exchange (a failure may be a stale keep-alive).
    private(set) var wasReused = false
    private var parser: HTTPResponseParser
    private var output = OutgoingBytes()
    private var isFlushScheduled = false
    private var wasAboveWatermark = false
    private var isReadingPaused = false
    private(set) var hasReceivedResponseBytes = false
    private var isTunnel = false
    /// Pending input kept while reading is paused mid-buffer.
    private var pending: [UInt8] = []
    var idleSince: UInt64 = 0

    init(fd: Int32, transport: any ConnectionTransport, pool: UpstreamPool) {
        self.fd = fd
        self.transport = transport
        self.pool = pool
        parser = HTTPResponseParser()
    }

    // MARK: Exchange lifecycle

    /// Prepares for a new exchange (`method` decides whether the response has a body).
    func begin(method: String, delegate: any UpstreamConnectionDelegate) {
        self.delegate = delegate
        wasReused = idleSince != 0
        idleSince = 0
        hasReceivedResponseBytes = false
        parser.expectResponse(to: method)
    }

    var isBelowWatermark: Bool { output.pendingCount < pool.configuration.writeHighWatermark }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed else { return }
        output.append(bytes)
        scheduleFlush()
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Queues a request head, serialised in place.
    func writeHead(_ head: HTTPRequestHead) {
        guard !isClosed else { return }
        output.appendRequestHead(head)
        scheduleFlush()
    }

    func writeChunk(_ bytes: UnsafeRawBufferPointer) {
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

    func resumeReading() {
        guard isReadingPaused else { return }
        isReadingPaused = false
        pool.loop.runAtEndOfIteration { [weak self] in
            guard let self, !self.isClosed else { return }
            self.drainPending()
            self.readAvailable()
        }
    }

    /// Raw byte mode after a 101 (WebSocket tunnel).
    func startTunnel() {
        isTunnel = true
    }

    // MARK: Events

    func handle(events: IOEvents) {
        if !isConnected {
            guard !events.isDisjoint(with: [.writable, .error, .hangUp]) else { return }
            let error = appnative_socket_error(fd)
            if error != 0 {
                fail(.connectFailed(error))
                return
            }
            isConnected = true
            delegate?.upstreamConnected(self)
            flush()
        }
        if events.contains(.writable) { flush() }
        if !events.isDisjoint(with: [.readable, .peerClosed, .hangUp, .error]) {
            mayHaveInput = true
            if !events.isDisjoint(with: [.peerClosed, .hangUp, .error]) { isPeerClosing = true }
            readAvailable()
        }
    }

    /// See `ServerConnection.mayHaveInput`: a short plain-TCP read means drained under edge
    /// triggering, so the next recv would only return EAGAIN.
    private var mayHaveInput = true
    private var isPeerClosing = false

    private func readAvailable() {
        while !isClosed && !isReadingPaused && mayHaveInput {
            let result = pool.scratch.withUnsafeMutableBytes { transport.receive(into: $0) }
            switch result {
            case .transferred(let received):
                if received < pool.scratch.count && !isPeerClosing && transport.shortReadDrainsSocket {
                    mayHaveInput = false
                }
                pool.scratch.withUnsafeBytes { process(UnsafeRawBufferPointer(rebasing: $0[..<received])) }
            case .wouldBlock:
                // TLS may be waiting to write (handshake): give queued output a chance.
                flush()
                return
            case .closed, .failed:
                endOfStream()
                return
            }
        }
    }

    private func drainPending() {
        guard !pending.isEmpty else { return }
        let bytes = pending
        pending = []
        bytes.withUnsafeBytes { process($0) }
    }

    private func process(_ buffer: UnsafeRawBufferPointer) {
        hasReceivedResponseBytes = true
        if isTunnel {
            delegate?.upstreamTunnelData(self, buffer)
            return
        }
        guard delegate != nil else {
            // Bytes on an idle connection: the upstream is misbehaving; never reuse it.
            close()
            return
        }
        var consumed = 0
        while !isClosed {
            if isReadingPaused {
                pending.append(contentsOf: buffer[consumed...])
                return
            }
            if isTunnel {
                if consumed < buffer.count { delegate?.upstreamTunnelData(self, UnsafeRawBufferPointer(rebasing: buffer[consumed...])) }
                return
            }
            let slice = UnsafeRawBufferPointer(rebasing: buffer[consumed...])
            let step: (consumed: Int, event: HTTPParserEvent<HTTPResponseHead>?)
            do {
                step = try parser.parse(slice)
            } catch {
                fail(.invalidResponse(error))
                return
            }
            consumed += step.consumed
            if let event = step.event {
                delegate?.upstream(self, received: event, in: slice)
                if parser.hasSwitchedProtocols { isTunnel = true }
                continue
            }
            if step.consumed == 0 || consumed == buffer.count { return }
        }
    }

    private func endOfStream() {
        if isTunnel || delegate == nil {
            let delegate = self.delegate
            close()
            if isTunnel { delegate?.upstream(self, failed: .closedMidResponse) }
            return
        }
        do {
            if let event = try parser.finish() {
                delegate?.upstream(self, received: event, in: UnsafeRawBufferPointer(start: nil, count: 0))
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
        if !isBelowWatermark { wasAboveWatermark = true }
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
        if closesWhenFlushed {
            close()
            return
        }
        if wasAboveWatermark {
            wasAboveWatermark = false
            delegate?.upstreamWritable(self)
        }
    }

    // MARK: Ending

    /// Whether the connection can carry another exchange.
    var isReusable: Bool { !isClosed && !isTunnel && output.isEmpty && pending.isEmpty && !parser.isDiscardingInput }

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
        if output.isEmpty || !isConnected {
            close()
        } else {
            closesWhenFlushed = true
            scheduleFlush()
        }
    }

    private var closesWhenFlushed = false

    private func fail(_ failure: UpstreamFailure) {
        let delegate = self.delegate
        self.delegate = nil
        close()
        delegate?.upstream(self, failed: failure)
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = transport.shutdown()
        pool.loop.deregister(fd)
        Glibc.close(fd)
        pool.connectionClosed(self)
    }
}
