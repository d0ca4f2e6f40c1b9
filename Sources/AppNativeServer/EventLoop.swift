import AppNativeCore
internal import CAppNativeLinux
import Foundation
import Synchronization

/// Something that owns a file descriptor registered with an event loop.
/// Loop-owned: `handle(events:)` runs on the loop's thread only.
public protocol EventHandler: AnyObject {
    func handle(events: IOEvents)
}

/// Readiness reported by epoll.
public struct IOEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = IOEvents(rawValue: appnative_epollin)
    public static let writable = IOEvents(rawValue: appnative_epollout)
    public static let peerClosed = IOEvents(rawValue: appnative_epollrdhup)
    public static let error = IOEvents(rawValue: appnative_epollerr)
    public static let hangUp = IOEvents(rawValue: appnative_epollhup)
}

/// One event loop: a thread owning an epoll instance, an eventfd for wake-ups and its timers
/// (docs/style.md §5). Connection state registered here is touched only on this thread, so the hot
/// path takes no locks; other threads hand work over with `execute(_:)`.
public final class EventLoop: @unchecked Sendable {
    // Invariant making @unchecked Sendable true: everything but `pending`, `stopRequested`,
    // `threadID` and the immutable fds is touched only on the loop's own thread, or before the
    // loop runs by the thread setting it up (`assertOwned`, checked in debug builds).
    public let index: Int
    private let epollFD: Int32
    private let wakeFD: Int32
    private var handlers: [Int32: (generation: UInt32, handler: any EventHandler)] = [:]
    private var nextGeneration: UInt32 = 1
    private var timers = TimerHeap()
    private let pending = Locked<[@Sendable () -> Void]>([])
    private let stopRequested = Locked(false)
    /// The thread running the loop (`pthread_self`), 0 until `run()` starts; atomic because
    /// `isCurrent` reads it from any thread.
    private let threadID = Atomic<UInt>(0)
    private var endOfIteration: [DeferredWork] = []
    // Spare storage for the two queues drained every iteration (loop thread only): a drained
    // batch's array is emptied in place and swapped back in, so draining allocates nothing.
    // (Handing the queue's array out and then calling `removeAll(keepingCapacity:)` on it would
    // allocate a fresh buffer of the whole capacity on every drain.)
    private var spareEndOfIteration: [DeferredWork] = []
    private var sparePending: [@Sendable () -> Void] = []

    /// Wake-ups use the generation 0 slot, which no registration ever gets.
    private static let wakeData: UInt64 = 0

    public init(index: Int) throws(SystemCallError) {
        self.index = index
        epollFD = try SystemCallError.check(appnative_epoll_create(), "epoll_create1")
        wakeFD = try SystemCallError.check(appnative_eventfd_create(), "eventfd")
        try SystemCallError.check(appnative_epoll_add(epollFD, wakeFD, appnative_epollin, Self.wakeData), "epoll_ctl(wake)")
    }

    deinit {
        close(wakeFD)
        close(epollFD)
    }

    /// Monotonic nanoseconds, the clock of this loop's timers.
    public var nowNanoseconds: UInt64 {
        var spec = timespec()
        // unsafe: clock_gettime writes one timespec into `spec`, a local that outlives the call.
        unsafe clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    // MARK: Registration (loop thread only)

    /// Registers `fd` for `events` (edge-triggered). Returns the registration's generation.
    @discardableResult
    public func register(_ fd: Int32, events: IOEvents, handler: any EventHandler) throws(SystemCallError) -> UInt32 {
        assertOwned()
        let generation = nextGeneration
        nextGeneration = nextGeneration == UInt32.max ? 1 : nextGeneration + 1
        handlers[fd] = (generation, handler)
        try SystemCallError.check(
            appnative_epoll_add(epollFD, fd, events.rawValue | appnative_epollet, Self.data(fd, generation)),
            "epoll_ctl(add)"
        )
        return generation
    }

    /// Changes the events of a registered fd.
    public func modify(_ fd: Int32, events: IOEvents) throws(SystemCallError) {
        assertOwned()
        guard let entry = handlers[fd] else { return }
        try SystemCallError.check(
            appnative_epoll_modify(epollFD, fd, events.rawValue | appnative_epollet, Self.data(fd, entry.generation)),
            "epoll_ctl(mod)"
        )
    }

    /// Removes `fd`; events already queued for it are ignored by their generation.
    public func deregister(_ fd: Int32) {
        assertOwned()
        guard handlers.removeValue(forKey: fd) != nil else { return }
        _ = appnative_epoll_remove(epollFD, fd)
    }

    private static func data(_ fd: Int32, _ generation: UInt32) -> UInt64 {
        UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
    }

    // MARK: Timers (loop thread only)

    /// A timer that runs `action` on this loop whenever an armed deadline passes. Every deadline
    /// of the loop (connection timeouts, upstream timeouts, pool expiry, one-shot delays) is one
    /// of these, in one heap.
    public func makeTimer(_ action: @escaping () -> Void) -> LoopTimer {
        assertOwned()
        return LoopTimer(action)
    }

    /// Arms (or re-arms) `timer` to fire at `deadline` (loop nanoseconds, `nowNanoseconds`).
    public func arm(_ timer: LoopTimer, at deadline: UInt64) {
        assertOwned()
        timers.arm(timer, at: deadline)
    }

    /// Arms (or re-arms) `timer` to fire after `delay`.
    public func arm(_ timer: LoopTimer, after delay: Duration) {
        arm(timer, at: nowNanoseconds + delay.wholeNanoseconds)
    }

    /// Disarms `timer`; it can be armed again.
    public func disarm(_ timer: LoopTimer) {
        assertOwned()
        timers.disarm(timer)
    }

    /// Disarms `timer` and lets go of it at once (its owner is going away).
    public func cancel(_ timer: LoopTimer) {
        assertOwned()
        timers.remove(timer)
    }

    /// Runs `callback` once on this loop after `delay`. Returns its timer, for `cancel(_:)`.
    @discardableResult
    public func schedule(after delay: Duration, _ callback: @escaping () -> Void) -> LoopTimer {
        let timer = makeTimer(callback)
        arm(timer, after: delay)
        return timer
    }

    /// Runs `body` once the events of the current iteration are handled (loop thread only).
    /// Writers use it to coalesce everything queued in one iteration into one `send`.
    public func runAtEndOfIteration(_ body: @escaping () -> Void) {
        assertOwned()
        endOfIteration.append(.closure(body))
    }

    /// Calls `work.runEndOfIterationWork()` once the events of the current iteration are handled
    /// (loop thread only), in order with the closures. For work scheduled on every request (a
    /// connection's flush): no closure context or weak reference is allocated. The loop holds
    /// `work` until then, so it must check that it is still open.
    public func runAtEndOfIteration(_ work: any EndOfIterationWork) {
        endOfIteration.append(.work(work))
    }

    private func drainEndOfIteration() {
        while !endOfIteration.isEmpty {
            // The batch is a local, so work that queues more (or a nested drain) cannot reach it.
            var batch = spareEndOfIteration
            spareEndOfIteration = []
            swap(&batch, &endOfIteration)
            defer {
                batch.removeAll(keepingCapacity: true)
                spareEndOfIteration = batch
            }
            for item in batch {
                switch item {
                case .closure(let body): body()
                case .work(let work): work.runEndOfIterationWork()
                }
            }
        }
    }

    // MARK: Cross-thread

    /// Runs `task` on this loop's thread soon. Safe from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(task) }
        _ = appnative_eventfd_signal(wakeFD)
    }

    /// Asks the loop to return from `run()` after the current iteration.
    public func stop() {
        stopRequested.withLock { $0 = true }
        _ = appnative_eventfd_signal(wakeFD)
    }

    /// Runs the loop on the calling thread until `stop()`.
    public func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        var events = [UInt32](repeating: 0, count: 256)
        var data = [UInt64](repeating: 0, count: 256)
        while !stopRequested.withLock({ $0 }) {
            let timeout: Int32
            if let deadline = timers.nextDeadline() {
                let now = nowNanoseconds
                timeout = deadline <= now ? 0 : Int32(min((deadline - now + 999_999) / 1_000_000, 60_000))
            } else {
                timeout = 60_000
            }
            // unsafe: epoll_wait writes at most 256 entries into `events` and `data`, each sized 256.
            let count = unsafe appnative_epoll_wait(epollFD, &events, &data, 256, timeout)
            if count > 0 {
                for index in 0..<Int(count) {
                    if data[index] == Self.wakeData {
                        _ = appnative_eventfd_drain(wakeFD)
                        continue
                    }
                    let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: data[index]))
                    let generation = UInt32(truncatingIfNeeded: data[index] >> 32)
                    // A closed and reused fd carries a new generation: stale events are dropped.
                    guard let entry = handlers[fd], entry.generation == generation else { continue }
                    entry.handler.handle(events: IOEvents(rawValue: events[index]))
                }
                drainEndOfIteration()
            }
            runPending()
            let now = nowNanoseconds
            while let timer = timers.popFirstDue(now: now) { timer.action() }
            drainEndOfIteration()
        }
        runPending()
        drainEndOfIteration()
    }

    private func runPending() {
        var batch = sparePending
        sparePending = []
        // Most iterations find nothing: then nothing is swapped and the spare goes back as it was.
        let hasTasks = pending.withLock { tasks -> Bool in
            guard !tasks.isEmpty else { return false }
            swap(&tasks, &batch)
            return true
        }
        if hasTasks {
            for task in batch { task() }
            batch.removeAll(keepingCapacity: true)
        }
        sparePending = batch
        drainEndOfIteration()
    }

    /// Whether the caller runs on this loop's thread.
    public var isCurrent: Bool {
        let running = threadID.load(ordering: .acquiring)
        return running != 0 && pthread_equal(pthread_t(running), pthread_self()) != 0
    }

    /// Traps in debug builds when loop-owned state is touched from another thread than the
    /// loop's (before `run()`, the thread setting the loop up owns it).
    @inline(__always)
    public func assertOwned(file: StaticString = #fileID, line: UInt = #line) {
        assert(threadID.load(ordering: .acquiring) == 0 || isCurrent, "loop-owned state touched off its loop", file: file, line: line)
    }
}

/// An object that defers work to the end of its loop's iteration (`EventLoop.runAtEndOfIteration(_:)`).
public protocol EndOfIterationWork: AnyObject {
    func runEndOfIterationWork()
}

private enum DeferredWork {
    case closure(() -> Void)
    case work(any EndOfIterationWork)
}
