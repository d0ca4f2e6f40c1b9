/// Timers of one event loop: a binary min-heap of deadlines with lazy cancellation.
///
/// Loop-owned: touched only on its loop's thread. Cancelling removes the callback from the table;
/// the heap entry is skipped when it surfaces, so cancel is O(1) and firing O(log n).
struct TimerHeap {
    typealias Callback = () -> Void

    private var heap: [(deadline: UInt64, id: UInt64)] = []
    private var callbacks: [UInt64: Callback] = [:]
    private var nextID: UInt64 = 1

    var isEmpty: Bool { callbacks.isEmpty }

    mutating func schedule(at deadline: UInt64, _ callback: @escaping Callback) -> UInt64 {
        let id = nextID
        nextID += 1
        callbacks[id] = callback
        heap.append((deadline, id))
        siftUp(heap.count - 1)
        return id
    }

    mutating func cancel(_ id: UInt64) {
        callbacks.removeValue(forKey: id)
        // Cancelled entries stay in the heap until they surface; a request that arms and cancels
        // a 60 s timer would otherwise leave requests/s × 60 dead entries. Rebuild when most are dead.
        if heap.count > 1024 && heap.count > 2 * callbacks.count { compact() }
    }

    private mutating func compact() {
        heap.removeAll { callbacks[$0.id] == nil }
        // Floyd's heap construction from the surviving entries, O(n).
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    /// The earliest live deadline, dropping cancelled entries on the way.
    mutating func nextDeadline() -> UInt64? {
        while let first = heap.first {
            if callbacks[first.id] != nil { return first.deadline }
            popFirst()
        }
        return nil
    }

    /// Removes and returns the callbacks due at `now`.
    mutating func popDue(now: UInt64) -> [Callback] {
        var due = [Callback]()
        while let first = heap.first, first.deadline <= now {
            popFirst()
            if let callback = callbacks.removeValue(forKey: first.id) { due.append(callback) }
        }
        return due
    }

    private mutating func popFirst() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
