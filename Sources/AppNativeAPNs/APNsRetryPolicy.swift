import AppNativeCore

/// Which failures are retried and how long to wait (docs/style.md §5: capped exponential backoff
/// with jitter). Pure, so tests check the schedule without a network or a clock.
///
/// Retried: 429, 500 and 503 from Apple, and a lost or refused connection. Not retried: a
/// timeout (Apple may have received the push, and a second copy would show twice), every other
/// status, and every error found before sending. A retry keeps the request's `apns-id`.
public struct APNsRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (1 = no retry).
    public var maxAttempts: Int
    /// The delay before the first retry, before jitter.
    public var baseDelay: Duration
    /// No delay exceeds this, before jitter.
    public var maxDelay: Duration

    /// Creates a policy.
    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(5)) {
        precondition(maxAttempts >= 1, "maxAttempts must be at least 1")
        precondition(baseDelay >= .zero && maxDelay >= baseDelay, "delays must satisfy 0 <= base <= max")
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Whether an Apple status is worth another attempt.
    public static func isRetryable(status: Int) -> Bool {
        status == 429 || status == 500 || status == 503
    }

    /// The wait after failed attempt number `attempt` (1-based): `min(maxDelay, base·2^(attempt−1))`
    /// scaled by `0.5 + jitter/2` ("equal jitter": never less than half, so retries stay spread
    /// out yet never collapse to zero).
    ///
    /// - Parameter jitter: a number in `0..<1` (random in production, fixed in tests).
    public func delay(afterAttempt attempt: Int, jitter: Double) -> Duration {
        precondition(attempt >= 1, "attempts are 1-based")
        let exponent = min(attempt - 1, 30)
        let base = baseDelay.seconds * Double(1 << exponent)
        let capped = min(base, maxDelay.seconds)
        let factor = 0.5 + min(max(jitter, 0), 1) / 2
        return .nanoseconds(Int64((capped * factor * 1e9).rounded()))
    }

    /// Whether attempt number `attempt` (1-based) may be followed by another.
    public func allowsRetry(afterAttempt attempt: Int) -> Bool { attempt < maxAttempts }
}
