import AppNativeCore
import AppNativeServer
import Foundation
import Testing

/// The loop's two queues (cross-thread tasks, end-of-iteration work) reuse their storage between
/// drains; what is queued must still run exactly once, in order, on the loop's thread.
@Suite("Event loop queues", .timeLimit(.minutes(1)))
struct EventLoopTests {
    /// Runs a loop on its own thread until `body` has queued everything and `done` is signalled.
    private func withRunningLoop(_ body: (EventLoop) -> Void) throws {
        let loop = try EventLoop(index: 0)
        let thread = Thread { loop.run() }
        thread.start()
        body(loop)
        loop.stop()
        while !thread.isFinished { usleep(1000) }
    }

    @Test("tasks from four threads, over many wake-ups, each run once on the loop thread")
    func crossThreadTasks() throws {
        let runs = Locked([Int: Int]())
        let offLoop = Locked(0)
        let finished = DispatchSemaphore(value: 0)
        let perThread = 2000
        try withRunningLoop { loop in
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for index in 0..<perThread {
                    let key = worker * perThread + index
                    loop.execute {
                        if !loop.isCurrent { offLoop.withLock { $0 += 1 } }
                        let count = runs.withLock { runs -> Int in
                            runs[key, default: 0] += 1
                            return runs.count
                        }
                        if count == 4 * perThread { finished.signal() }
                    }
                    if index % 500 == 0 { usleep(200) }  // let the loop drain between bursts
                }
            }
            #expect(finished.wait(timeout: .now() + 20) == .success)
        }
        let counts = runs.withLock { $0 }
        #expect(counts.count == 4 * perThread)
        #expect(counts.values.allSatisfy { $0 == 1 })
        #expect(offLoop.withLock { $0 } == 0)
    }

    @Test("end-of-iteration work queued while draining runs in the same drain, in order, once")
    func endOfIterationWork() throws {
        let order = Locked([String]())
        let finished = DispatchSemaphore(value: 0)
        try withRunningLoop { loop in
            for round in 0..<50 {
                loop.execute {
                    loop.runAtEndOfIteration {
                        order.withLock { $0.append("\(round)a") }
                        loop.runAtEndOfIteration {
                            order.withLock { $0.append("\(round)c") }
                            if round == 49 { finished.signal() }
                        }
                    }
                    loop.runAtEndOfIteration { order.withLock { $0.append("\(round)b") } }
                }
                if round % 10 == 0 { usleep(500) }
            }
            #expect(finished.wait(timeout: .now() + 20) == .success)
        }
        let seen = order.withLock { $0 }
        #expect(seen.count == 150)
        #expect(Set(seen).count == 150, "nothing ran twice")
        for round in 0..<50 {
            let a = seen.firstIndex(of: "\(round)a")!, b = seen.firstIndex(of: "\(round)b")!
            let c = seen.firstIndex(of: "\(round)c")!
            #expect(a < b && b < c, "round \(round): \(a) \(b) \(c)")
        }
    }
}
