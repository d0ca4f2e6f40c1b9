import Foundation

// Unsafe: clock_gettime writes one timespec into a local one.

/// The source of time for everything that checks expiry or schedules work.
///
/// Two readings: wall time (token `exp`/`iat` are wall-clock seconds) and a monotonic
/// instant (cache ages and refresh intervals must not jump with NTP adjustments).
/// Injected everywhere so tests drive time by hand (docs/style.md §5).
public protocol TimeSource: Sendable {
    /// Seconds since 1970-01-01T00:00:00Z.
    var wallSeconds: Double { get }
    /// A monotonic instant, only meaningful relative to other readings of the same source.
    var monotonic: Duration { get }
    /// Suspends for `duration` of this source's time.
    func sleep(for duration: Duration) async throws
}

/// The process clocks: `CLOCK_REALTIME` for wall time, `CLOCK_MONOTONIC` for intervals.
public struct SystemTimeSource: TimeSource {
    public init() {}

    public var wallSeconds: Double {
        var spec = timespec()
        unsafe clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    public var monotonic: Duration {
        var spec = timespec()
        unsafe clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    public func sleep(for duration: Duration) async throws {
        try await ContinuousClock().sleep(for: duration)
    }
}

extension Duration {
    /// The duration as fractional seconds, for logs and metrics.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, negative durations as 0: the unit of the event loops'
    /// clocks. `components` is 128-bit arithmetic, so hot paths convert their timeouts once.
    public var wholeNanoseconds: UInt64 {
        let parts = components
        return UInt64(max(0, parts.seconds)) * 1_000_000_000 + UInt64(max(0, parts.attoseconds / 1_000_000_000))
    }
}
