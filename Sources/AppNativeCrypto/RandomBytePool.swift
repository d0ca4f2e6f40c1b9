// Unsafe: the pool's buffer is filled through its own bounds, and `draw` lends `start..<start+count`
// only after checking that range lies inside it.

/// Random bytes drawn from a buffer that `SecureRandom` refills a few hundred bytes at a time:
/// one `RAND_bytes` call (with its fork check and DRBG lock) per refill instead of one per draw.
///
/// For identifiers that must be unpredictable and unique but are not keys: request ids, `apns-id`.
/// Not for key material (the bytes sit in an ordinary buffer until drawn), and not across `fork`
/// (parent and child would draw the same bytes; the gateway never forks). A value type: owned by
/// one thread, or kept behind a `Locked`.
public struct RandomBytePool: Sendable {
    private var buffer: [UInt8]
    private var position: Int

    /// A pool refilled `capacity` bytes at a time (at least 16).
    public init(capacity: Int = 512) {
        precondition(capacity >= 16, "a random pool smaller than one identifier")
        buffer = [UInt8](repeating: 0, count: capacity)
        position = capacity
    }

    /// Calls `body` with `count` fresh random bytes (at most the pool's capacity), never handed out
    /// before.
    public mutating func draw<Result>(_ count: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        precondition(count >= 0 && count <= buffer.count, "draw larger than the pool")
        if buffer.count - position < count {
            unsafe buffer.withUnsafeMutableBytes { unsafe SecureRandom.fill($0) }
            position = 0
        }
        let start = position
        position += count
        return unsafe buffer.withUnsafeBufferPointer { unsafe body(UnsafeBufferPointer(rebasing: $0[start..<(start + count)])) }
    }
}
