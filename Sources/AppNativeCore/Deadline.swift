/// Thrown when an operation run under `withDeadline` outlives its budget.
public struct DeadlineExceeded: Error, Sendable, CustomStringConvertible {
    public let timeout: Duration
    public var description: String { "deadline of \(timeout) exceeded" }
}

/// Runs `operation` with a whole-operation budget measured on `time`.
///
/// Unlike a task group, this returns as soon as the budget runs out even if `operation`
/// ignores cancellation (a hung socket read): the operation is cancelled and abandoned,
/// and the caller gets `DeadlineExceeded` on time.
public func withDeadline<T: Sendable>(
    _ timeout: Duration,
    time: any TimeSource,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = Locked<Bool>(false)
    let tasks = Locked<[Task<Void, Never>]>([])
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        /// Resumes the continuation once; later finishers are ignored.
        @Sendable func finish(_ result: Result<T, any Error>) {
            let isFirst = outcome.withLock { done -> Bool in
                if done { return false }
                done = true
                return true
            }
            guard isFirst else { return }
            for task in tasks.withLock({ $0 }) { task.cancel() }
            continuation.resume(with: result)
        }
        let work = Task {
            do { finish(.success(try await operation())) } catch { finish(.failure(error)) }
        }
        let timer = Task {
            do {
                try await time.sleep(for: timeout)
                finish(.failure(DeadlineExceeded(timeout: timeout)))
            } catch {
                // Cancelled because the work finished first.
            }
        }
        tasks.withLock { $0 = [work, timer] }
        // A finish that ran before the tasks were recorded could not cancel them; do it now.
        if outcome.withLock({ $0 }) {
            work.cancel()
            timer.cancel()
        }
    }
}
