import AppNativeCore

/// Prepared OpenSSL state (signature contexts, bignum scratch) that one caller at a time uses and
/// then hands back for the next: preparing it costs more than the operation it serves. Objects
/// beyond `capacity` are dropped (freed) instead of kept.
final class IdleObjects<Object: Sendable>: Sendable {
    private let idle = Locked<[Object]>([])
    private let capacity: Int

    /// Enough for every event-loop thread plus a few async callers.
    init(capacity: Int = 16) {
        self.capacity = capacity
    }

    /// An idle object, or nil when every one is in use (the caller prepares a new one).
    func take() -> Object? {
        idle.withLock { $0.popLast() }
    }

    /// Returns `object` for the next caller, unless `capacity` objects already wait.
    func park(_ object: Object) {
        idle.withLock { idle in
            if idle.count < capacity { idle.append(object) }
        }
    }
}
