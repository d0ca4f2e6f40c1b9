#if APPNATIVE_PTHREAD_LOCKS
import Glibc
#else
public import Synchronization
#endif

/// Shared mutable state behind a lock (docs/style.md §5).
///
/// `Mutex` by default; a pthread mutex when built with `-D APPNATIVE_PTHREAD_LOCKS`, because
/// ThreadSanitizer on Linux does not see `Mutex` and reports false races.
/// Keep the closure short and never call out of the module while holding the lock.
public final class Locked<Value: ~Copyable>: Sendable {
    #if APPNATIVE_PTHREAD_LOCKS
    // The pthread mutex guards `value`; both are only touched inside `withLock`.
    @usableFromInline nonisolated(unsafe) let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @usableFromInline nonisolated(unsafe) var value: Value

    public init(_ value: consuming sending Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inlinable
    public func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
    #else
    @usableFromInline let mutex: Mutex<Value>

    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    @inlinable
    public func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock(body)
    }
    #endif
}
