/// Where one upstream connection is in its life, and what each event on it leads to: connecting,
/// serving an exchange (before and after the first response byte), idle in the pool, a WebSocket
/// tunnel, closing once its last bytes are written, closed. Pure: `UpstreamConnection` reads and
/// writes the socket, runs the response parser and performs what the transitions return, after
/// them, so an exchange told about an event finds the connection already in its next state.
///
/// The parser stays beside the machine, not in it: its steps call into another module, and a
/// `modify` of the machine around such a call would make every access to it, even a read of
/// `isClosed`, pay for dynamic exclusivity checking.
struct UpstreamConnectionState {
    enum Phase: Equatable {
        /// The non-blocking connect is under way for an exchange; queued bytes wait for it.
        case connecting
        /// Serving an exchange on an established connection.
        case serving(ResponseProgress)
        /// In the pool since `since` (nanoseconds on the loop's clock), waiting for an exchange.
        case idle(since: UInt64)
        /// After a 101 to a WebSocket upgrade: raw bytes both ways, no more HTTP.
        case tunnel
        /// The last bytes (a tunnel's close frame) are being written; then it closes.
        case closingAfterFlush
        case closed
    }

    /// Whether any byte of the current exchange's response arrived, which decides whether a
    /// close is an answer cut short or one never begun (and so whether a retry is safe).
    enum ResponseProgress: Equatable {
        case awaitingResponse
        case receiving
    }

    private(set) var phase = Phase.connecting

    // MARK: Facts

    /// Whether the TCP connect completed and the connection is not closed: bytes may be written.
    var isConnected: Bool {
        switch phase {
        case .serving, .idle, .tunnel, .closingAfterFlush: true
        case .connecting, .closed: false
        }
    }

    var isClosed: Bool { phase == .closed }

    var isTunnel: Bool { phase == .tunnel }

    /// Whether an exchange is using the connection (its events go to the exchange).
    var hasExchange: Bool {
        switch phase {
        case .connecting, .serving, .tunnel: true
        case .idle, .closingAfterFlush, .closed: false
        }
    }

    // MARK: Events

    /// An exchange takes the connection (new, or from the pool).
    mutating func begin() {
        switch phase {
        case .idle: phase = .serving(.awaitingResponse)
        case .serving: phase = .serving(.awaitingResponse)
        case .connecting, .tunnel, .closingAfterFlush, .closed: break
        }
    }

    /// What the outcome of the non-blocking connect leads to.
    enum ConnectAction: Equatable {
        /// Tell the exchange and flush what it queued.
        case connected
        /// The connect failed with `errno`: close and tell the exchange.
        case fail(UpstreamFailure)
        /// Not connecting (an event after the connect): nothing to do.
        case none
    }

    /// The socket reported the connect's outcome (`error` from `SO_ERROR`, 0 on success).
    mutating func connectCompleted(error: Int32) -> ConnectAction {
        guard case .connecting = phase else { return .none }
        if error != 0 {
            phase = .closed
            return .fail(.connectFailed(error))
        }
        phase = .serving(.awaitingResponse)
        return .connected
    }

    /// What received bytes are for.
    enum ReceiveAction: Equatable {
        /// Parse them as the current exchange's response.
        case parse
        /// Raw tunnel bytes for the exchange.
        case tunnel
        /// Bytes on an idle connection: the upstream is misbehaving; never reuse it.
        case close
        /// Bytes after the tunnel's last frame was queued: nobody reads them any more.
        case discard
    }

    /// Bytes arrived from the upstream.
    mutating func received() -> ReceiveAction {
        switch phase {
        case .serving:
            phase = .serving(.receiving)
            return .parse
        case .tunnel: return .tunnel
        case .connecting:
            // A connection reports readiness before its connect event only when it failed; the
            // read that follows finds the failure.
            phase = .serving(.receiving)
            return .parse
        case .closingAfterFlush: return .discard
        case .idle, .closed: return .close
        }
    }

    /// The parser saw a 101 end, or the exchange switched the connection to raw bytes after one.
    mutating func startTunnel() {
        guard !isClosed else { return }
        phase = .tunnel
    }

    /// What the end of the upstream's byte stream (or a read failure) leads to.
    enum EndAction: Equatable {
        /// Close; the exchange, if any, is told `failure`.
        case close(failure: UpstreamFailure?)
        /// Close, then ask the parser for the response's last event (a body delimited by the
        /// close) for the exchange; without one, the exchange is told `otherwise`.
        case finishResponse(otherwise: UpstreamFailure)
        case none
    }

    mutating func endOfStream() -> EndAction {
        switch phase {
        case .tunnel:
            phase = .closed
            return .close(failure: .closedMidResponse)
        case .idle, .closingAfterFlush:
            phase = .closed
            return .close(failure: nil)
        case .closed:
            return .none
        case .connecting, .serving:
            let failure = cutShort
            phase = .closed
            return .finishResponse(otherwise: failure)
        }
    }

    /// Writing failed, or the peer reset: close, telling the exchange (if one is using the
    /// connection) how far its answer got.
    mutating func failed() -> EndAction {
        switch phase {
        case .closed: return .none
        case .connecting, .serving, .tunnel:
            let failure = cutShort
            phase = .closed
            return .close(failure: failure)
        case .idle, .closingAfterFlush:
            phase = .closed
            return .close(failure: nil)
        }
    }

    /// How a close now ends the current exchange's answer.
    private var cutShort: UpstreamFailure {
        switch phase {
        case .serving(.receiving), .tunnel: .closedMidResponse
        case .connecting, .serving(.awaitingResponse), .idle, .closingAfterFlush, .closed: .closedBeforeResponse
        }
    }

    /// What the passing of the connection's one deadline means.
    enum DeadlineAction: Equatable {
        /// The exchange's connect or response deadline: the exchange decides.
        case tellExchange
        /// The idle expiry: close.
        case close
        case none
    }

    mutating func deadlinePassed() -> DeadlineAction {
        switch phase {
        case .connecting, .serving, .tunnel: return .tellExchange
        case .idle:
            phase = .closed
            return .close
        case .closingAfterFlush, .closed: return .none
        }
    }

    /// Whether the connection can carry another exchange once this one ends: established, not a
    /// tunnel, and with nothing of the last exchange left (`isDrained`: no bytes queued either
    /// way, and the parser not discarding the rest of a response that closes the connection).
    func isReusable(isDrained: Bool) -> Bool {
        guard case .serving = phase, isDrained else { return false }
        return true
    }

    /// What the end of an exchange leads to.
    enum ReleaseAction: Equatable {
        /// Back to the pool.
        case giveBack
        case close
        case none
    }

    /// The exchange is over with the connection; `reusable` is the exchange's verdict (its
    /// request and response both complete).
    mutating func release(reusable: Bool, isDrained: Bool) -> ReleaseAction {
        if isClosed { return .none }
        if reusable && isReusable(isDrained: isDrained) { return .giveBack }
        phase = .closed
        return .close
    }

    /// The pool kept the connection idle at `now`.
    mutating func becameIdle(at now: UInt64) {
        guard !isClosed else { return }
        phase = .idle(since: now)
    }

    /// Close once queued bytes are written (a tunnel's last frame), or at once if none are.
    mutating func closeAfterFlush(hasQueuedBytes: Bool) -> ReleaseAction {
        switch phase {
        case .closingAfterFlush, .closed: return .none
        case .serving, .tunnel, .idle:
            if hasQueuedBytes {
                phase = .closingAfterFlush
                return .none
            }
            phase = .closed
            return .close
        case .connecting:
            phase = .closed
            return .close
        }
    }

    /// Queued bytes were all written; returns whether the connection now closes.
    mutating func drained() -> Bool {
        guard case .closingAfterFlush = phase else { return false }
        phase = .closed
        return true
    }

    /// `close()` was called directly (the pool retiring it, an exchange cutting it).
    mutating func close() -> Bool {
        if isClosed { return false }
        phase = .closed
        return true
    }
}
