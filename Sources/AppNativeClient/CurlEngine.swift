import AppNativeCore
internal import CAppNativeLinux
import Dispatch
internal import Glibc
import Synchronization

// Unsafe: the worker thread is started with a retained `Unmanaged` reference to the engine, which
// the thread takes back exactly once; the name passed to the thread is a C string literal.

/// The part of a client shared between callers and its one worker thread: the submission
/// queue, the multi handle (for wake-ups) and the worker's lifecycle.
final class CurlEngine: Sendable {
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, ClientError>, Never>

    /// What a caller hands the worker: the checked request and where to deliver its outcome.
    struct Submission: Sendable {
        var request: PreparedRequest
        var continuation: Continuation
    }

    let multi: CurlMulti
    private let queue = Locked(SubmissionQueue<Submission>())
    private let exited = DispatchGroup()

    /// Transfers currently added to the multi handle.
    let activeTransfers = Atomic<Int>(0)
    /// Transfers ever added to the multi handle: a refused request never counts.
    let startedTransfers = Atomic<Int>(0)
    /// Worker threads ever started by this engine (always 1 once running).
    let workerThreadsStarted = Atomic<Int>(0)

    init(connectionsStayBusy: Bool, connectionsPerHost: Int?) {
        multi = CurlMulti(connectionsStayBusy: connectionsStayBusy, connectionsPerHost: connectionsPerHost)
    }

    /// Starts the worker thread. It holds the engine, never the client, so dropping the client
    /// can shut the engine down.
    func startWorker() {
        exited.enter()
        let context = unsafe Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = unsafe pthread_create(
            &thread, nil,
            { context in
                let engine = unsafe Unmanaged<CurlEngine>.fromOpaque(context!).takeRetainedValue()
                engine.runWorker()
                return nil
            }, unsafe context)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }

    private func runWorker() {
        workerThreadsStarted.add(1, ordering: .relaxed)
        // Named for top -H and perf: otherwise it inherits the name of whichever (dispatch)
        // thread sent the first request.
        unsafe appnative_set_thread_name("curl-worker")
        // Process signals belong to the signalfd on loop 0 (docs/style.md §5); faults stay
        // deliverable so a crash on this thread still produces a backtrace.
        var signals = sigset_t()
        unsafe sigfillset(&signals)
        for synchronous in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS] {
            unsafe sigdelset(&signals, synchronous)
        }
        unsafe pthread_sigmask(SIG_BLOCK, &signals, nil)
        CurlWorker(engine: self).run()
        exited.leave()
    }

    func register() -> UInt64 {
        queue.withLock { $0.register() }
    }

    func submit(_ id: UInt64, _ request: PreparedRequest, _ continuation: Continuation) {
        let submission = Submission(request: request, continuation: continuation)
        let action = queue.withLock { $0.submit(id, submission) }
        switch action {
        case .none:
            break
        case .wakeWorker:
            multi.wakeUp()
        case .fail(let code):
            let reason = code == .shutDown ? "client is shut down" : "cancelled before it was sent"
            continuation.resume(returning: .failure(ClientError(code, reason: reason)))
        }
    }

    func cancel(_ id: UInt64) {
        if queue.withLock({ $0.cancel(id) }) == .wakeWorker { multi.wakeUp() }
    }

    func forget(_ id: UInt64) {
        queue.withLock { $0.forget(id) }
    }

    func takeCommands() -> (commands: [SubmissionQueue<Submission>.Command], isShutDown: Bool) {
        queue.withLock { $0.takeCommands() }
    }

    /// Refuses new requests, fails the queued and in-flight ones with `.shutDown`, and waits
    /// until the worker thread has returned. Idempotent; every caller waits.
    func shutDown() {
        if queue.withLock({ $0.shutDown() }) == .wakeWorker { multi.wakeUp() }
        exited.wait()
    }
}
