/// The phases of a WebSocket tunnel between a client and the upstream after a 101, and where
/// each direction's frames begin and end, so the gateway's own close frame (at the credential's
/// expiry) goes between two frames, never into one. Pure: `ProxyTunnel` moves the bytes and
/// performs what the transitions return.
struct ProxyTunnelState {
    enum Phase: Equatable {
        /// Bytes flow both ways.
        case open
        /// The credential expired mid-frame toward the client: that frame still reaches the
        /// client whole, then both ends get a close frame.
        case ending
        /// Both ends are closed or closing; later events change nothing.
        case closed
    }

    private(set) var phase = Phase.open
    /// Frame boundaries of each direction.
    private var framesToClient = WebSocketFrameTracker()
    private var framesToUpstream = WebSocketFrameTracker()

    /// How the tunnel closes with the gateway's close frame.
    struct Closing: Equatable {
        /// Whether the upstream's side is between frames, so its (masked) close frame can go too.
        var isUpstreamAtFrameBoundary: Bool
    }

    /// What bytes from the upstream lead to.
    enum UpstreamBytesAction: Equatable {
        /// Send the bytes to the client; pause the upstream if the client is not draining.
        case forward(ArraySlice<UInt8>)
        /// Send the bytes (the rest of the frame in flight) to the client, then close both ends.
        case forwardAndClose(ArraySlice<UInt8>, Closing)
        case none
    }

    /// What the credential's expiry leads to.
    enum ExpiryAction: Equatable {
        /// Close both ends with the close frame now.
        case close(Closing)
        /// Wait for the frame in flight (bounded by `ProxyTunnel.endingTimeout`).
        case awaitFrameBoundary
        case none
    }

    // MARK: Events

    mutating func upstreamSent(_ bytes: ArraySlice<UInt8>) -> UpstreamBytesAction {
        switch phase {
        case .open:
            _ = framesToClient.follow(bytes)
            return .forward(bytes)
        case .ending:
            // The frame in flight still reaches the client whole; what follows it does not.
            let count = framesToClient.follow(bytes, stoppingAtBoundary: true)
            guard framesToClient.isAtFrameBoundary else { return .forward(bytes.prefix(count)) }
            return .forwardAndClose(bytes.prefix(count), close())
        case .closed:
            return .none
        }
    }

    /// Bytes from the client; returns whether they go upstream.
    mutating func clientSent(_ bytes: ArraySlice<UInt8>) -> Bool {
        switch phase {
        case .open, .ending:
            _ = framesToUpstream.follow(bytes)
            return true
        case .closed:
            return false
        }
    }

    /// The client side closed; returns whether the upstream must be closed too.
    mutating func clientClosed() -> Bool {
        guard phase != .closed else { return false }
        phase = .closed
        return true
    }

    /// The upstream closed or failed; returns whether the client side must be closed too.
    mutating func upstreamClosed() -> Bool {
        guard phase != .closed else { return false }
        phase = .closed
        return true
    }

    mutating func credentialExpired() -> ExpiryAction {
        guard case .open = phase else { return .none }
        if framesToClient.isAtFrameBoundary { return .close(close()) }
        phase = .ending
        return .awaitFrameBoundary
    }

    /// The frame in flight did not end in time; returns whether both ends must be cut.
    mutating func endingTimedOut() -> Bool {
        guard case .ending = phase else { return false }
        phase = .closed
        return true
    }

    private mutating func close() -> Closing {
        phase = .closed
        return Closing(isUpstreamAtFrameBoundary: framesToUpstream.isAtFrameBoundary)
    }
}
