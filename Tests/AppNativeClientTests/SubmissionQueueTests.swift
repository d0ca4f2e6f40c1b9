import AppNativeClient
import Testing

/// The caller/worker hand-over, driven directly (docs/style.md §5).
@Suite("SubmissionQueue")
struct SubmissionQueueTests {
    @Test("the first command wakes the worker; later ones ride on that wake-up")
    func wakeCoalescing() {
        var queue = SubmissionQueue<String>()
        let first = queue.register()
        let second = queue.register()
        #expect(queue.submit(first, "a") == .wakeWorker)
        #expect(queue.submit(second, "b") == .none)
        let batch = queue.takeCommands()
        #expect(batch.commands.count == 2)
        #expect(!batch.isShutDown)
        let third = queue.register()
        #expect(queue.submit(third, "c") == .wakeWorker)
    }

    @Test("a cancellation before submission fails the submission without queueing it")
    func cancelBeforeSubmit() {
        var queue = SubmissionQueue<String>()
        let id = queue.register()
        #expect(queue.cancel(id) == .none)
        #expect(queue.submit(id, "a") == .fail(.cancelled))
        #expect(queue.takeCommands().commands.isEmpty)
        queue.forget(id)
        #expect(queue.trackedCount == 0)
    }

    @Test("a cancellation after submission is queued for the worker")
    func cancelAfterSubmit() {
        var queue = SubmissionQueue<String>()
        let id = queue.register()
        _ = queue.submit(id, "a")
        _ = queue.takeCommands()
        #expect(queue.cancel(id) == .wakeWorker)
        let commands = queue.takeCommands().commands
        guard commands.count == 1, case .cancel(let cancelled) = commands[0] else {
            Issue.record("expected one cancel command, got \(commands)")
            return
        }
        #expect(cancelled == id)
    }

    @Test("a cancellation after the caller has its result is ignored")
    func cancelAfterForget() {
        var queue = SubmissionQueue<String>()
        let id = queue.register()
        _ = queue.submit(id, "a")
        _ = queue.takeCommands()
        queue.forget(id)
        #expect(queue.cancel(id) == .none)
        #expect(queue.takeCommands().commands.isEmpty)
        #expect(queue.trackedCount == 0)
    }

    @Test("shutdown wakes the worker once and refuses later submissions")
    func shutdown() {
        var queue = SubmissionQueue<String>()
        let early = queue.register()
        _ = queue.submit(early, "a")
        #expect(queue.shutDown() == .wakeWorker)
        #expect(queue.shutDown() == .none)
        let batch = queue.takeCommands()
        #expect(batch.isShutDown)
        #expect(batch.commands.count == 1)
        let late = queue.register()
        #expect(queue.submit(late, "b") == .fail(.shutDown))
    }
}
