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

    // Transitions return the next value instead of mutating in place: the owner assigns it, so
    // no access to its stored reader spans a call, and the reader keeps static exclusivity
    // enforcement even where these functions are not inlined (another module).
    package private(set) var input = Input.readable

    package init() {}

    /// The readiness events that concern input.
    package static let inputEvents: IOEvents = [.readable, .peerClosed, .hangUp, .error]

    /// Whether the peer's FIN was read.
    package var peerHasClosed: Bool { input == .peerClosed }

    /// Whether a `recv` may return bytes.
    package var mayHaveInput: Bool { input != .drained && input != .peerClosed }

    /// The reader after a readiness event that concerns input (`inputEvents`).
    package func afterReadiness(_ events: IOEvents) -> SocketReader {
        var next = self
        switch input {
        case .peerClosed, .peerClosing: break
        case .readable, .drained:
            next.input = events.isDisjoint(with: [.peerClosed, .hangUp, .error]) ? .readable : .peerClosing
        }
        return next
    }

    /// The reader once nothing is expected until the next edge (an EAGAIN the owner trusts).
    package var waitingForNextEdge: SocketReader {
        var next = self
        next.input = .drained
        return next
    }

    /// The reader after a `recv` into a buffer of `bufferSize` bytes returned `result`.
    package func afterRead(_ result: TransportResult, bufferSize: Int, shortReadDrainsSocket: Bool) -> SocketReader {
        var next = self
        switch result {
        case .transferred(let received):
            if received < bufferSize && input == .readable && shortReadDrainsSocket { next.input = .drained }
        case .closed:
            next.input = .peerClosed
        case .wouldBlock, .failed:
            break
        }
        return next
    }
}

/// A connection that reads its socket with the shared loop (`readAvailable()`), keeping a
/// `SocketReader` as a private stored property. The requirements never expose that property (a
/// settable requirement would make every access to it a dynamic exclusivity check), and each
/// touches it briefly, so what `received(count:)` does (parse, call handlers, close) may read it
/// again.
package protocol SocketReading: AnyObject {
    /// The reader's `mayHaveInput`.
    var socketMayHaveInput: Bool { get }
    /// Whether the owner takes input now (it may stop mid-loop: backpressure, a pause, a close).
    var wantsInput: Bool { get }
    /// One `recv` into the owner's receive buffer, recorded in its reader (`afterRead`).
    func receiveIntoBuffer() -> TransportResult
    /// `count` fresh bytes are at the start of the receive buffer.
    func received(count: Int)
}

extension SocketReading {
    /// Reads while the owner wants input and the socket may have it.
    @inlinable package func readAvailable() -> SocketReader.End {
        while socketMayHaveInput && wantsInput {
            let result = receiveIntoBuffer()
            switch result {
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
/// that it drained: the one write-demand rule client and upstream connections share. A value the
/// owner reassigns (see `SocketReader`).
package enum WriteDemand: Sendable, Equatable {
    case none
    /// A producer was refused room and waits to hear that the output drained.
    case producerWaiting

    /// After bytes were queued; `pendingCount` wait for the socket.
    package func afterQueuing(pendingCount: Int, highWatermark: Int) -> WriteDemand {
        pendingCount >= highWatermark ? .producerWaiting : self
    }
}
