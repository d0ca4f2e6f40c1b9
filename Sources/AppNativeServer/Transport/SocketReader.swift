/// The read side of a non-blocking socket under edge-triggered epoll: the one read loop client
/// and upstream connections share. It remembers what the socket may still deliver, so a short
/// plain-TCP read ends the loop without the `recv` that would only return EAGAIN (as nginx
/// assumes: the next arrival raises a new edge).
package struct SocketReader: Sendable {
    package enum Input: Sendable, Equatable {
        /// A readiness event arrived: read until a short read or EAGAIN.
        case readable
        /// A short read (or EAGAIN where the owner says so): nothing until the next event.
        case drained
        /// The peer's FIN or an error was reported: read until recv returns 0 or fails.
        case peerClosing
        /// recv returned 0: the peer sends nothing more.
        case peerClosed
    }

    /// How a read loop ended.
    package enum End: Sendable, Equatable {
        /// A short read drained the socket, or the owner stopped wanting input.
        case stopped
        /// EAGAIN, or TLS waiting for the other direction.
        case wouldBlock
        /// recv returned 0.
        case closed
        case failed
    }

    package private(set) var input = Input.readable

    package init() {}

    /// Whether the peer's FIN was read.
    package var peerHasClosed: Bool { input == .peerClosed }

    /// Whether a `recv` may return bytes.
    package var mayHaveInput: Bool { input != .drained && input != .peerClosed }

    /// Records a readiness event; true when it concerns input.
    package mutating func noteReadiness(_ events: IOEvents) -> Bool {
        guard !events.isDisjoint(with: [.readable, .peerClosed, .hangUp, .error]) else { return false }
        switch input {
        case .peerClosed, .peerClosing: break
        case .readable, .drained:
            input = events.isDisjoint(with: [.peerClosed, .hangUp, .error]) ? .readable : .peerClosing
        }
        return true
    }

    /// Nothing more until the next edge (an EAGAIN the caller trusts).
    package mutating func waitForNextEdge() { input = .drained }

    /// Records what a `recv` returned into a buffer of `bufferSize` bytes.
    package mutating func note(_ result: TransportResult, bufferSize: Int, shortReadDrainsSocket: Bool) {
        switch result {
        case .transferred(let received):
            if received < bufferSize && input == .readable && shortReadDrainsSocket { input = .drained }
        case .closed:
            input = .peerClosed
        case .wouldBlock, .failed:
            break
        }
    }
}

/// A connection that reads its socket with the shared loop (`readAvailable()`). Its methods are
/// called from the loop only; each access to `reader` is brief, so what `received(count:)` does
/// (parse, call handlers, close) may touch the reader again.
package protocol SocketReading: AnyObject {
    var reader: SocketReader { get set }
    /// Whether the owner takes input now (it may stop mid-loop: backpressure, a pause, a close).
    var wantsInput: Bool { get }
    /// One `recv` into the owner's receive buffer: its result and the buffer's size.
    func receiveIntoBuffer() -> (result: TransportResult, bufferSize: Int, shortReadDrainsSocket: Bool)
    /// `count` fresh bytes are at the start of the receive buffer.
    func received(count: Int)
}

extension SocketReading {
    /// Reads while the owner wants input and the socket may have it.
    package func readAvailable() -> SocketReader.End {
        while reader.mayHaveInput && wantsInput {
            let read = receiveIntoBuffer()
            reader.note(read.result, bufferSize: read.bufferSize, shortReadDrainsSocket: read.shortReadDrainsSocket)
            switch read.result {
            case .transferred(let count): received(count: count)
            case .wouldBlock: return .wouldBlock
            case .closed: return .closed
            case .failed: return .failed
            }
        }
        return .stopped
    }
}

/// Whether a producer was refused room (the output passed the high watermark) and waits to hear
/// that it drained: the one write-demand rule client and upstream connections share.
package struct WriteDemand: Sendable {
    private enum State: Sendable {
        case none
        case producerWaiting
    }

    private var state = State.none

    package init() {}

    /// Bytes were queued; `pendingCount` wait for the socket.
    package mutating func queued(pendingCount: Int, highWatermark: Int) {
        if pendingCount >= highWatermark { state = .producerWaiting }
    }

    /// The output drained; true when a producer waited (it is told once).
    package mutating func drained() -> Bool {
        guard case .producerWaiting = state else { return false }
        state = .none
        return true
    }
}
