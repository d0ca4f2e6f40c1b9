import AppNativeCore
@testable import AppNativeServer
import Foundation
import Testing

/// The loop's one timer mechanism: `TimerHeap` driven with explicit times (no clock), then a
/// running loop firing, re-arming and skipping timers in deadline order.
@Suite("Loop timers", .timeLimit(.minutes(1)))
struct LoopTimerTests {
    @Test("extended, moved-earlier, disarmed and removed timers fire at their current deadline or never")
    func lazyRearming() {
        var heap = TimerHeap()
        var fired: [String] = []
        let a = LoopTimer { fired.append("a") }
        let b = LoopTimer { fired.append("b") }
        let c = LoopTimer { fired.append("c") }
        let d = LoopTimer { fired.append("d") }
        heap.arm(a, at: 100)
        heap.arm(b, at: 50)
        heap.arm(c, at: 200)
        heap.arm(d, at: 120)
        heap.arm(b, at: 300)  // later: stays at its key, re-keyed when that surfaces
        heap.disarm(c)
        heap.remove(d)
        // b's place is still 50: the loop wakes then, and b is re-keyed instead of fired.
        #expect(heap.nextDeadline() == 50)
        while let timer = heap.popFirstDue(now: 150) { timer.action() }
        #expect(fired == ["a"])
        while let timer = heap.popFirstDue(now: 250) { timer.action() }
        #expect(fired == ["a"], "c was disarmed, d removed, b extended")
        heap.arm(a, at: 1000)
        heap.arm(a, at: 400)  // earlier: sifted up
        #expect(heap.nextDeadline() == 300)
        while let timer = heap.popFirstDue(now: 450) { timer.action() }
        #expect(fired == ["a", "b", "a"])
        #expect(heap.nextDeadline() == nil && heap.isEmpty)
    }

    @Test("random arming, disarming and removal fire exactly what a plain table says, in deadline order")
    func matchesAModel() {
        var generator = SplitMix(seed: 15)
        var heap = TimerHeap()
        var fired: [Int] = []
        let timers = (0..<64).map { index in LoopTimer { fired.append(index) } }
        var model: [Int: UInt64] = [:]
        var now: UInt64 = 1
        for _ in 0..<5000 {
            let index = Int(generator.next() % 64)
            switch generator.next() % 5 {
            case 0, 1:
                let deadline = now + generator.next() % 1000
                heap.arm(timers[index], at: deadline)
                model[index] = max(deadline, 1)
            case 2:
                heap.disarm(timers[index])
                model[index] = nil
            case 3:
                heap.remove(timers[index])
                model[index] = nil
            default:
                now += generator.next() % 300
                fired = []
                while let timer = heap.popFirstDue(now: now) { timer.action() }
                let due = model.filter { $0.value <= now }
                #expect(Set(fired) == Set(due.keys))
                let deadlines = fired.map { due[$0] ?? 0 }
                #expect(deadlines == deadlines.sorted())
                for key in due.keys { model[key] = nil }
            }
        }
    }

    @Test("a running loop fires armed timers in order, re-arms in place and skips disarmed ones")
    func runningLoop() throws {
        let loop = try EventLoop(index: 0)
        let thread = Thread { loop.run() }
        thread.start()
        defer {
            loop.stop()
            while !thread.isFinished { usleep(1000) }
        }
        let events = Locked([String]())
        let finished = DispatchSemaphore(value: 0)
        loop.execute {
            let skipped = loop.makeTimer { events.withLock { $0.append("skipped") } }
            loop.arm(skipped, after: .milliseconds(10))
            loop.disarm(skipped)
            var count = 0
            let ticking = loop.makeTimer {
                count += 1
                events.withLock { $0.append("tick \(count)") }
            }
            loop.arm(ticking, after: .milliseconds(20))
            loop.schedule(after: .milliseconds(60)) {
                events.withLock { $0.append("last") }
                finished.signal()
            }
            // Re-armed before it fired: it fires once, at the later deadline, before `last`.
            loop.arm(ticking, after: .milliseconds(40))
        }
        #expect(finished.wait(timeout: .now() + 20) == .success)
        #expect(events.withLock { $0 } == ["tick 1", "last"])
    }
}

/// A small deterministic generator, so a failure repeats.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
