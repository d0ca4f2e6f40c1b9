/// The state shared between callers and the worker thread, as a value-type state machine
/// (docs/style.md §5): each input returns what to do, and the engine does it outside the lock.
///
/// It solves the race between a caller's cancellation and its submission: a request's id is
/// registered before the continuation exists, so a cancellation that arrives first is
/// remembered and the late submission fails at once instead of running unobserved.
package struct SubmissionQueue<Payload: Sendable>: Sendable {
    /// Work for the worker thread, in arrival order.
    package enum Command: Sendable {
        case start(id: UInt64, payload: Payload)
        case cancel(id: UInt64)
    }

    /// What the engine must do after an input.
    package enum Action: Sendable, Equatable {
        case none
        /// The queue went from empty to non-empty: interrupt the worker's poll.
        case wakeWorker
        /// The submission was refused; fail the caller with this code.
        case fail(ClientError.Code)
    }

    private enum Phase: Sendable {
        case registered
        case submitted
        case cancelledBeforeSubmission
    }

    private var commands: [Command] = []
    private var phases: [UInt64: Phase] = [:]
    private var nextID: UInt64 = 1
    package private(set) var isShutDown = false

    package init() {}

    /// A fresh id for a request about to be submitted.
    package mutating func register() -> UInt64 {
        defer { nextID += 1 }
        phases[nextID] = .registered
        return nextID
    }

    /// Queues a registered request for the worker, unless it was cancelled meanwhile or the
    /// engine is shutting down.
    package mutating func submit(_ id: UInt64, _ payload: Payload) -> Action {
        if isShutDown { return .fail(.shutDown) }
        switch phases[id] {
        case .registered:
            phases[id] = .submitted
            return enqueue(.start(id: id, payload: payload))
        case .cancelledBeforeSubmission:
            return .fail(.cancelled)
        case .submitted, nil:
            preconditionFailure("request \(id) submitted twice or after it was forgotten")
        }
    }

    /// The caller's task was cancelled.
    package mutating func cancel(_ id: UInt64) -> Action {
        switch phases[id] {
        case .registered:
            phases[id] = .cancelledBeforeSubmission
            return .none
        case .submitted:
            return enqueue(.cancel(id: id))
        case .cancelledBeforeSubmission, nil:
            return .none
        }
    }

    /// The caller has its result; later cancellations of its task concern nothing.
    package mutating func forget(_ id: UInt64) {
        phases[id] = nil
    }

    /// Refuses every later submission. Returns `.wakeWorker` the first time.
    package mutating func shutDown() -> Action {
        guard !isShutDown else { return .none }
        isShutDown = true
        return .wakeWorker
    }

    /// Hands the queued commands to the worker, with whether it must stop after them.
    ///
    /// The queue's storage goes with them and the queue starts again empty. Keeping the capacity
    /// instead would allocate a copy of it on every call (the handed-out array still shares it),
    /// as large as the longest backlog ever seen: under a steady trickle of pushes that was one
    /// large allocation, and a heap consolidation, per wake of the worker.
    package mutating func takeCommands() -> (commands: [Command], isShutDown: Bool) {
        var taken: [Command] = []
        swap(&taken, &commands)
        return (taken, isShutDown)
    }

    /// How many requests are registered and not yet forgotten.
    package var trackedCount: Int { phases.count }

    private mutating func enqueue(_ command: Command) -> Action {
        let wasEmpty = commands.isEmpty
        commands.append(command)
        return wasEmpty ? .wakeWorker : .none
    }
}
