public import Synchronization

/// A value replaced in whole at run time (a file read again on `SIGHUP`) and read by every
/// request on every loop.
///
/// Replacements are rare and reads constant: each loop keeps its own copy (`Snapshot`) and
/// takes the lock only when `generation` says a replacement happened since it last looked, so
/// a read costs one atomic load. A reader that keeps the value it read finishes on it, whatever
/// replaces it meanwhile.
public final class Reloadable<Value: Sendable>: Sendable {
    @usableFromInline let current: Locked<(generation: Int, value: Value)>
    /// Bumped after each replacement; a snapshot whose copy is older reads `current` again.
    @usableFromInline let generation = Atomic<Int>(0)

    public init(_ value: Value) {
        current = Locked((0, value))
    }

    /// The value in force (takes the lock: for paths that are not per request).
    public var value: Value { current.withLock { $0.value } }

    /// Puts `value` in force for every reader that looks next.
    public func replace(with value: Value) {
        let next = current.withLock { state in
            state = (state.generation + 1, value)
            return state.generation
        }
        generation.store(next, ordering: .releasing)
    }

    /// One loop's copy of the value in force (loop-owned: not shared between threads).
    ///
    /// `refresh()` is inlinable so that the per-request check compiles, specialised, into the
    /// caller: one atomic load and a comparison.
    public struct Snapshot: Sendable {
        public let source: Reloadable<Value>
        @usableFromInline var generation: Int
        @usableFromInline var copy: Value

        public init(_ source: Reloadable<Value>) {
            self.source = source
            (generation, copy) = source.current.withLock { ($0.generation, $0.value) }
        }

        /// The copy: the value in force when `refresh()` last found a replacement.
        @inlinable public var value: Value { copy }

        /// Takes the value in force when a replacement happened since the last look.
        ///
        /// - Returns: whether the copy changed (a caller that derives state from it rebuilds it).
        @inlinable @discardableResult
        public mutating func refresh() -> Bool {
            guard source.generation.load(ordering: .acquiring) != generation else { return false }
            (generation, copy) = source.current.withLock { ($0.generation, $0.value) }
            return true
        }
    }
}
