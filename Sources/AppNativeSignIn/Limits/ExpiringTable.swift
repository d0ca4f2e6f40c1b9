/// Entries that each expire at a given second, at most `capacity` of them: a dictionary for
/// lookups and a binary min-heap of expiries for pruning, so every operation costs O(log n)
/// (amortised: heap entries left behind by an update are dropped lazily, and the heap is rebuilt
/// when they outnumber the live ones).
///
/// The table itself never drops an entry before it expires: `insert` reports a full table, and
/// the caller decides (refuse, or `removeEarliest()` to make room).
public struct ExpiringTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var expiresAt: Int64
    }

    private struct Mark: Sendable {
        var expiresAt: Int64
        var key: Key
    }

    private var entries: [Key: Entry] = [:]
    /// Min-heap by `expiresAt`; a mark whose expiry differs from its key's entry (or whose key is
    /// gone) is stale and skipped.
    private var heap: [Mark] = []
    /// The most entries the table holds.
    public let capacity: Int

    /// - Parameter capacity: the most entries held (at least 1).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Entries held, expired ones not yet pruned included.
    public var count: Int { entries.count }

    /// The value for `key` unless it has expired at `now` (an entry expires at its `expiresAt`).
    public func value(for key: Key, now: Int64) -> Value? {
        guard let entry = entries[key], entry.expiresAt > now else { return nil }
        return entry.value
    }

    /// The expiry of the entry that expires first, once expired entries are pruned.
    public mutating func earliestExpiry(now: Int64) -> Int64? {
        removeExpired(now: now)
        dropStaleTop()
        return heap.first?.expiresAt
    }

    /// Whether an entry for a new key would fit at `now`.
    public mutating func hasRoom(now: Int64) -> Bool {
        if entries.count < capacity { return true }
        removeExpired(now: now)
        return entries.count < capacity
    }

    /// Sets `key` to `value` until `expiresAt`. Returns `false`, changing nothing, when `key` is
    /// new and the table is full of entries that have not expired at `now`.
    @discardableResult
    public mutating func insert(_ value: Value, for key: Key, expiresAt: Int64, now: Int64) -> Bool {
        if entries[key] == nil, !hasRoom(now: now) { return false }
        entries[key] = Entry(value: value, expiresAt: expiresAt)
        push(Mark(expiresAt: expiresAt, key: key))
        if heap.count > 2 * entries.count + 64 { rebuildHeap() }
        return true
    }

    /// Removes every entry expired at `now`.
    public mutating func removeExpired(now: Int64) {
        while let top = heap.first, top.expiresAt <= now {
            popTop()
            if let entry = entries[top.key], entry.expiresAt == top.expiresAt { entries[top.key] = nil }
        }
    }

    /// Removes the entry that expires first (making room when the caller may forget one).
    public mutating func removeEarliest() {
        dropStaleTop()
        guard let top = heap.first else { return }
        popTop()
        entries[top.key] = nil
    }

    // MARK: The heap

    private mutating func dropStaleTop() {
        while let top = heap.first, entries[top.key]?.expiresAt != top.expiresAt { popTop() }
    }

    private mutating func rebuildHeap() {
        heap = entries.map { Mark(expiresAt: $0.value.expiresAt, key: $0.key) }
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    private mutating func push(_ mark: Mark) {
        heap.append(mark)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].expiresAt < heap[parent].expiresAt else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        guard !heap.isEmpty else { return }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        siftDown(0)
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count, heap[left + 1].expiresAt < heap[left].expiresAt { smallest = left + 1 }
            guard heap[smallest].expiresAt < heap[parent].expiresAt else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
