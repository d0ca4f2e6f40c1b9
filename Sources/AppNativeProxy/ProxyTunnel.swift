import AppNativeHTTP
import AppNativeServer

/// A WebSocket tunnel after a 101: the client's side through its carrier's `Tunnel`, the
/// upstream's through the connection that answered, bytes relayed both ways with backpressure.
/// The phases are `ProxyTunnelState`'s; this class moves the bytes. Loop-owned.
///
/// The client's carrier holds the tunnel (as its `TunnelDelegate`) for the tunnel's life, and the
/// tunnel holds the exchange it came from, whose credential deadline ends it.
final class ProxyTunnel: TunnelDelegate, UpstreamConnectionDelegate {
    private var state = ProxyTunnelState()
    private let upstream: UpstreamConnection
    /// The client's side, handed over by the carrier once it switched (`attach`).
    private var client: Tunnel?
    private let exchange: ProxyExchange
    private let loop: EventLoop

    /// The close code and reason a tunnel ends with when its credential expires (documented in
    /// docs/identity.md): in the private range (RFC 6455 §7.4.2), after HTTP's 401.
    static let credentialExpiredCloseCode: UInt16 = 4401
    static let credentialExpiredReason = "credential expired"

    /// How long a tunnel may take to reach a frame boundary once its credential expired.
    static let endingTimeout: Duration = .seconds(10)

    /// Takes `upstream` over (its events come here from now on) for `exchange`'s tunnel.
    init(upstream: UpstreamConnection, exchange: ProxyExchange, loop: EventLoop) {
        self.upstream = upstream
        self.exchange = exchange
        self.loop = loop
        upstream.delegate = self
        upstream.startTunnel()
    }

    /// The client's side, from `HTTPExchange.startTunnel(delegate:)`.
    func attach(_ client: Tunnel) {
        self.client = client
    }

    // MARK: Upstream side

    func upstream(_ connection: UpstreamConnection, received event: HTTPParserEvent<HTTPResponseHead>, in buffer: ArraySlice<UInt8>) {
        // The 101's own end: the tunnel starts after it.
    }

    func upstream(_ connection: UpstreamConnection, _ event: UpstreamEvent) {
        switch event {
        case .tunnelData(let bytes):
            switch state.upstreamSent(bytes) {
            case .forward(let bytes):
                client?.send(bytes)
                if client?.isWritable == false { connection.pauseReading() }
            case .forwardAndClose(let bytes, let closing):
                if !bytes.isEmpty { client?.send(bytes) }
                close(closing)
            case .none:
                break
            }
        case .writable:
            client?.resume()
        case .failed:
            if state.upstreamClosed() { client?.close() }
        case .connected, .deadlinePassed:
            // No deadline is armed on a tunnel.
            break
        }
    }

    // MARK: Client side

    func tunnel(_ tunnel: Tunnel, received bytes: ArraySlice<UInt8>) {
        guard state.clientSent(bytes) else { return }
        upstream.write(bytes)
        if !upstream.isBelowWatermark { tunnel.pause() }
    }

    func tunnelDidBecomeWritable(_ tunnel: Tunnel) {
        upstream.resumeReading()
    }

    func tunnelDidClose(_ tunnel: Tunnel) {
        if state.clientClosed() { upstream.close() }
        client = nil
        exchange.tunnelEnded()
    }

    // MARK: Credential expiry

    /// Ends the tunnel with close code 4401 at the next frame boundary toward the client (within
    /// `endingTimeout`, else both ends are cut).
    func endForExpiredCredential() {
        switch state.credentialExpired() {
        case .close(let closing):
            close(closing)
        case .awaitFrameBoundary:
            loop.schedule(after: Self.endingTimeout) { [weak self] in
                guard let self, self.state.endingTimedOut() else { return }
                self.client?.close()
                self.upstream.close()
            }
        case .none:
            break
        }
    }

    /// Both ends get a close frame (the upstream's masked, as a client's must be, and only
    /// between frames), then the connections close once it is written.
    private func close(_ closing: ProxyTunnelState.Closing) {
        let code = Self.credentialExpiredCloseCode
        let reason = Self.credentialExpiredReason
        client?.send(WebSocketFrameTracker.closeFrame(code: code, reason: reason))
        client?.close()
        if closing.isUpstreamAtFrameBoundary {
            var maskingKey = [UInt8](repeating: 0, count: 4)
            var generator = SystemRandomNumberGenerator()
            for index in maskingKey.indices { maskingKey[index] = generator.next() }
            upstream.write(WebSocketFrameTracker.closeFrame(code: code, reason: reason, maskingKey: maskingKey))
        }
        upstream.closeAfterFlush()
    }
}

@available(*, unavailable, message: "loop-owned")
extension ProxyTunnel: Sendable {}
