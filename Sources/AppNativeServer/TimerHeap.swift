/// A deadline on one event loop, re-armed in place: its owner makes it once (with the action it
/// runs) and arms, re-arms and disarms it as often as it likes without allocating.
///
/// Loop-owned: created, armed and fired on its loop's thread only.
public final class LoopTimer {
    /// What runs when the deadline passes (on the loop, once per arming).
    let action: () -> Void
    /// When it fires (loop nanoseconds), 0 when disarmed.
    fileprivate(set) var deadline: UInt64 = 0
    /// Where it sits in the heap: its `key` may be earlier than `deadline` (see `TimerHeap`).
    fileprivate var key: UInt64 = 0
    fileprivate var heapIndex = -1

    init(_ action: @escaping () -> Void) { self.action = action }

    /// Whether a deadline is set.
    public var isArmed: Bool { deadline != 0 }
}

@available(*, unavailable, message: "loop-owned: use it only on its event loop")
extension LoopTimer: Sendable {}

/// The timers of one event loop: a binary min-heap of `LoopTimer`s, each knowing its index.
///
/// Loop-owned. Re-arming is lazy because deadlines mostly move later (a connection's idle
/// timeout, pushed back by each request): a timer stays at its heap `key` and only its
/// `deadline` changes; when the key surfaces, a later deadline is re-keyed and sunk instead of
/// fired. Moving a deadline earlier sifts it up; disarming leaves it to be dropped when it
/// surfaces; `remove` takes it out at once (its owner is going away). A steady keep-alive
/// connection therefore costs no heap work per request.
struct TimerHeap {
    private var heap: [LoopTimer] = []

    var isEmpty: Bool { heap.isEmpty }

    mutating func arm(_ timer: LoopTimer, at deadline: UInt64) {
        // 0 means disarmed; a deadline at the clock's origin is one nanosecond later.
        let deadline = max(deadline, 1)
        timer.deadline = deadline
        if timer.heapIndex < 0 {
            timer.key = deadline
            timer.heapIndex = heap.count
            heap.append(timer)
            siftUp(timer.heapIndex)
        } else if deadline < timer.key {
            timer.key = deadline
            siftUp(timer.heapIndex)
        }
    }

    mutating func disarm(_ timer: LoopTimer) {
        timer.deadline = 0
    }

    mutating func remove(_ timer: LoopTimer) {
        timer.deadline = 0
        let index = timer.heapIndex
        guard index >= 0, index < heap.count, heap[index] === timer else { return }
        let last = heap.count - 1
        if index != last {
            heap.swapAt(index, last)
            heap[index].heapIndex = index
        }
        heap.removeLast()
        timer.heapIndex = -1
        if index < heap.count {
            siftDown(index)
            siftUp(index)
        }
    }

    /// When the loop must wake next: the earliest heap key. It may precede every armed deadline
    /// (a timer extended or disarmed since it took its place); the loop then wakes early once and
    /// `popFirstDue` settles that entry. Settling here instead would sift on every iteration,
    /// since nearly every timer is extended by each request.
    func nextDeadline() -> UInt64? {
        heap.first?.key
    }

    /// Removes and returns the earliest timer due at `now`, disarmed. Called until it returns
    /// nil, firing each before taking the next, so a timer that an earlier one disarmed or
    /// re-armed is never fired for its old deadline. Entries whose key passed but whose timer
    /// was disarmed are dropped, and extended ones re-keyed, on the way.
    mutating func popFirstDue(now: UInt64) -> LoopTimer? {
        while let first = heap.first, first.key <= now {
            if first.deadline == 0 {
                remove(first)
            } else if first.key < first.deadline {
                // Extended since it took its place: it moves to its deadline (due or not), so
                // timers due together still fire in deadline order.
                first.key = first.deadline
                siftDown(0)
            } else {
                remove(first)
                return first
            }
        }
        return nil
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].key < heap[parent].key else { return }
            swap(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].key < heap[smallest].key { smallest = left }
            if right < heap.count, heap[right].key < heap[smallest].key { smallest = right }
            if smallest == parent { return }
            swap(parent, smallest)
            parent = smallest
        }
    }

    private mutating func swap(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        heap[a].heapIndex = a
        heap[b].heapIndex = b
    }
}
