/// A token bucket per key (a client address): `perMinute` tokens, refilled continuously at
/// `perMinute` a minute, one taken per request. A value type driven by the caller's clock.
///
/// Memory is bounded whatever keys arrive: at most `capacity` buckets. A bucket that has refilled
/// completely is the same as no bucket, so it expires then; when the table is full of buckets
/// still refilling, the one closest to full is forgotten to make room (which can only give that
/// key its full budget a little early). Every operation costs O(log n) (`ExpiringTable`).
public struct SignInRateLimiter: Sendable {
    /// What `take` decided.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// No token left; one is back in `retryAfterSeconds`.
        case limited(retryAfterSeconds: Int64)
    }

    private struct Bucket: Sendable {
        var tokens: Double
        var updatedAt: Double
    }

    /// Requests allowed per minute per key, and the burst.
    public let perMinute: Int
    private var buckets: ExpiringTable<String, Bucket>

    /// The most client addresses each limiter remembers.
    public static let defaultCapacity = 50_000

    /// - Parameters:
    ///   - perMinute: at least 1.
    ///   - capacity: the most keys remembered.
    public init(perMinute: Int, capacity: Int = defaultCapacity) {
        self.perMinute = max(1, perMinute)
        buckets = ExpiringTable(capacity: capacity)
    }

    private var ratePerSecond: Double { Double(perMinute) / 60 }

    /// Takes a token for `key` at `now` (monotonic seconds).
    public mutating func take(_ key: String, now: Double) -> Decision {
        let second = Int64(now.rounded(.down))
        let burst = Double(perMinute)
        var bucket = buckets.value(for: key, now: second) ?? Bucket(tokens: burst, updatedAt: now)
        bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updatedAt) * ratePerSecond)
        bucket.updatedAt = now
        let decision: Decision
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            decision = .allowed
        } else {
            decision = .limited(retryAfterSeconds: max(1, Int64(((1 - bucket.tokens) / ratePerSecond).rounded(.up))))
        }
        // Full again (and so forgettable) after this long.
        let refilled = Int64((now + (burst - bucket.tokens) / ratePerSecond).rounded(.up)) + 1
        if !buckets.insert(bucket, for: key, expiresAt: refilled, now: second) {
            buckets.removeEarliest()
            buckets.insert(bucket, for: key, expiresAt: refilled, now: second)
        }
        return decision
    }

    /// Keys remembered (buckets not yet refilled, some expired ones until pruned).
    public var count: Int { buckets.count }
}
