import AppNativeCore

/// States already used at the callback, kept until their attempt would have expired. The state
/// cookie is cleared at the callback, so a browser never sends it twice; this refuses a callback
/// replayed with a copied cookie on the same instance. The provider's one-time code is the
/// defence across instances.
public final class ConsumedSignInStates: Sendable {
    private let entries = Locked<[String: Int64]>([:])
    /// A bound on memory: every entry needs a signed cookie, which anyone can get by asking to
    /// sign in, so the table must not grow with them.
    public let capacity: Int

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Marks `state` used; `false` when it already was (a replay).
    public func consume(_ state: String, expiresAt: Int64, now: Double) -> Bool {
        let wall = now.isFinite ? Int64(max(0, min(now, 1e15))) : 0
        let capacity = capacity
        return entries.withLock { table in
            if let expiry = table[state], expiry > wall { return false }
            if table.count >= capacity {
                table = table.filter { $0.value > wall }
                // Still full: forget the attempts closest to expiring first.
                while table.count >= capacity, let oldest = table.min(by: { $0.value < $1.value }) {
                    table[oldest.key] = nil
                }
            }
            table[state] = expiresAt
            return true
        }
    }

    public var count: Int { entries.withLock { $0.count } }
}
