/// Moves bytes for a connection: plain TCP or TLS. Non-blocking; loop-owned.
public protocol ConnectionTransport: AnyObject {
    /// Reads into `buffer`.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult
    /// Writes from `bytes`.
    func send(_ bytes: UnsafeRawBufferPointer) -> TransportResult
    /// Sends a TLS close_notify where there is one; never blocks.
    func shutdown()
}

public enum TransportResult: Sendable {
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
