import AppNativeCore

/// States already used at the callback, kept until their attempt would have expired. The state
/// cookie is cleared at the callback, so a browser never sends it twice; this refuses a callback
/// replayed with a copied cookie on the same instance. The provider's one-time code is the
/// defence across instances.
///
/// An unexpired entry is never forgotten (forgetting one would reopen its replay): when the
/// table is full of them, new attempts are refused (`.full`, and `hasRoom` at the start) until
/// the first expires. Every operation costs O(log n) (`ExpiringTable`).
public final class ConsumedSignInStates: Sendable {
    /// What `consume` found.
    public enum Outcome: Sendable, Equatable {
        /// The state was not used before; it is now marked used.
        case fresh
        /// The state was already used: a replay.
        case replayed
        /// The table is full of unexpired states; the first expires in `retryAfterSeconds`.
        case full(retryAfterSeconds: Int64)
    }

    private let table: Locked<ExpiringTable<String, Void>>
    /// A bound on memory: every entry needs a signed cookie, which anyone can get by asking to
    /// sign in, so the table must not grow with them.
    public let capacity: Int

    /// The most used states remembered at once (a few MB).
    public static let defaultCapacity = 100_000

    /// - Parameter capacity: the most states held (at least 1).
    public init(capacity: Int = defaultCapacity) {
        self.capacity = max(1, capacity)
        table = Locked(ExpiringTable(capacity: max(1, capacity)))
    }

    /// Marks `state` used until `expiresAt`.
    public func consume(_ state: String, expiresAt: Int64, now: Double) -> Outcome {
        let wall = Self.second(now)
        return table.withLock { table in
            if table.value(for: state, now: wall) != nil { return .replayed }
            if table.insert((), for: state, expiresAt: expiresAt, now: wall) { return .fresh }
            return .full(retryAfterSeconds: Self.retryAfter(table.earliestExpiry(now: wall), now: wall))
        }
    }

    /// `nil` when a new attempt would fit; else the seconds until the first entry expires.
    public func retryAfterIfFull(now: Double) -> Int64? {
        let wall = Self.second(now)
        return table.withLock { table in
            table.hasRoom(now: wall) ? nil : Self.retryAfter(table.earliestExpiry(now: wall), now: wall)
        }
    }

    /// States held (expired ones until pruned).
    public var count: Int { table.withLock { $0.count } }

    private static func second(_ now: Double) -> Int64 { now.isFinite ? Int64(max(0, min(now, 1e15))) : 0 }

    private static func retryAfter(_ expiry: Int64?, now: Int64) -> Int64 {
        max(1, min((expiry ?? now + 1) - now, SignInAttempt.maxLifetime.components.seconds))
    }
}
