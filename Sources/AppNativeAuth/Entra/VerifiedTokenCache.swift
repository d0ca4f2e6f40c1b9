public import AppNativeCore
import AppNativeCrypto

/// Tokens already verified, so a repeat costs a hash and a lookup instead of an RSA verification.
///
/// The app sends the same token on every call for about an hour. Entries are keyed by the token
/// (`CredentialKey`: its SHA-256 above 4 KiB), bounded by an LRU of `capacity` entries.
/// An entry remembers the `kid` that verified it and dies when that key leaves the key set.
/// Expiry is still checked on every hit by the verifier.
public final class VerifiedTokenCache: Sendable {
    struct Entry: Sendable {
        var identity: VerifiedIdentity
        var keyID: String
        var kind: EntraTokenKind
    }

    private let storage: Locked<LRUStorage<CredentialKey, Entry>>
    private let hits: Counter
    private let misses: Counter

    public init(capacity: Int, metrics: MetricsRegistry = .shared) {
        precondition(capacity >= 0, "capacity must not be negative")
        storage = Locked(LRUStorage(capacity: capacity))
        hits = metrics.counter(MetricCatalogue.authTokenCacheLookups, labels: ["result": "hit"])
        misses = metrics.counter(MetricCatalogue.authTokenCacheLookups, labels: ["result": "miss"])
    }

    func entry(for key: CredentialKey) -> Entry? {
        let found = storage.withLock { $0.value(for: key) }
        if found == nil { misses.increment() } else { hits.increment() }
        return found
    }

    func insert(_ entry: Entry, for key: CredentialKey) {
        storage.withLock { $0.insert(entry, for: key) }
    }

    func remove(_ key: CredentialKey) {
        storage.withLock { $0.remove(key) }
    }

    /// Drops every entry verified with one of `keyIDs` (called after a key-set reload).
    public func removeEntries(verifiedWith keyIDs: Set<String>) {
        storage.withLock { $0.removeAll { keyIDs.contains($0.keyID) } }
    }

    public var count: Int { storage.withLock { $0.count } }
}

/// A fixed-capacity least-recently-used map over index-linked nodes (no per-hit allocation).
struct LRUStorage<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Node: Sendable {
        var key: Key
        var value: Value
        var previous: Int
        var next: Int
    }

    let capacity: Int
    private var index: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var free: [Int] = []
    /// Most recently used node, or -1.
    private var head = -1
    /// Least recently used node, or -1.
    private var tail = -1

    init(capacity: Int) {
        self.capacity = capacity
        index.reserveCapacity(min(capacity, 1 << 16))
    }

    var count: Int { index.count }

    mutating func value(for key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToFront(slot)
        return nodes[slot].value
    }

    mutating func insert(_ value: Value, for key: Key) {
        guard capacity > 0 else { return }
        if let slot = index[key] {
            nodes[slot].value = value
            moveToFront(slot)
            return
        }
        if index.count >= capacity, tail >= 0 { remove(nodes[tail].key) }
        let node = Node(key: key, value: value, previous: -1, next: head)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        index[key] = slot
    }

    mutating func remove(_ key: Key) {
        guard let slot = index.removeValue(forKey: key) else { return }
        unlink(slot)
        free.append(slot)
    }

    mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        let doomed = index.filter { shouldRemove(nodes[$0.value].value) }.map(\.key)
        for key in doomed { remove(key) }
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous, next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = -1
        nodes[slot].next = -1
    }

    private mutating func moveToFront(_ slot: Int) {
        guard head != slot else { return }
        unlink(slot)
        nodes[slot].next = head
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}
