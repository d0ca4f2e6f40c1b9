/// Moves bytes for a connection: plain TCP or TLS. Non-blocking; loop-owned.
package protocol ConnectionTransport: AnyObject {
    /// Reads into `buffer`.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult
    /// Writes from `bytes`.
    func send(_ bytes: UnsafeRawBufferPointer) -> TransportResult
    /// Sends a TLS close_notify where there is one; never blocks. `.wouldBlock`: the socket has
    /// no room, call again once it is writable; `.transferred(0)`: done (or nothing to send).
    func shutdown() -> TransportResult
    /// Whether a read that filled less than the buffer proves the socket drained, so the
    /// edge-triggered caller may wait for the next event instead of reading again (plain TCP
    /// yes; TLS no: the library may hold decrypted bytes or read one record at a time).
    var shortReadDrainsSocket: Bool { get }
    /// Whether the TLS handshake selected `h2` by ALPN (RFC 7301); false for plain TCP.
    var selectedHTTP2: Bool { get }
}

package enum TransportResult: Sendable {
    case transferred(Int)
    /// Try again on the next readiness event (EAGAIN, or TLS wanting the other direction).
    case wouldBlock
    /// The peer closed cleanly.
    case closed
    case failed
}

@available(*, unavailable, message: "loop-owned")
extension PlainTransport: Sendable {}

@available(*, unavailable, message: "loop-owned")
extension TLSTransport: Sendable {}
