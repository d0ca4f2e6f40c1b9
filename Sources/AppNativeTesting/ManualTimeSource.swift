public import AppNativeCore
import Foundation

/// A time source driven by the test: `advance(by:)` moves both wall and monotonic time and
/// wakes sleepers whose deadline has passed.
public final class ManualTimeSource: TimeSource {
    private struct State {
        var wall: Double
        var monotonic: Duration = .seconds(1000)
        var sleepers: [(id: Int, deadline: Duration, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextSleeperID = 0
        var cancelledSleepers: Set<Int> = []
    }

    private let state: Locked<State>

    public init(wallSeconds: Double) {
        state = Locked(State(wall: wallSeconds))
    }

    public var wallSeconds: Double { state.withLock { $0.wall } }
    public var monotonic: Duration { state.withLock { $0.monotonic } }

    /// Moves time forward and resumes every sleeper that is now due.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.wall += duration.seconds
            state.monotonic += duration
            let now = state.monotonic
            let ready = state.sleepers.filter { $0.deadline <= now }.map(\.continuation)
            state.sleepers.removeAll { $0.deadline <= now }
            return ready
        }
        for continuation in due { continuation.resume() }
    }

    /// How many tasks are sleeping on this source.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// How long until the earliest sleeper is due; `nil` when nobody sleeps. Lets a test read a
    /// schedule (a retry's backoff) and advance exactly to it.
    public var nextSleeperDelay: Duration? {
        state.withLock { state in state.sleepers.map(\.deadline).min().map { $0 - state.monotonic } }
    }

    public func sleep(for duration: Duration) async throws {
        let id = state.withLock { state -> Int in
            state.nextSleeperID += 1
            return state.nextSleeperID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    let deadline = state.monotonic + duration
                    if deadline <= state.monotonic || state.cancelledSleepers.remove(id) != nil { return true }
                    state.sleepers.append((id, deadline, continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledSleepers.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }
}

/// A log sink that keeps records in memory, for asserting on logs (and on what they must not contain).
public final class InMemoryLogSink: LogSink {
    private let records = Locked<[LogRecord]>([])

    public init() {}

    public func write(_ record: LogRecord) {
        records.withLock { $0.append(record) }
    }

    public var all: [LogRecord] { records.withLock { $0 } }

    /// Every record rendered as its JSON line, for "never contains" assertions.
    public var renderedLines: [String] { all.map(LogLine.json(for:)) }
}
