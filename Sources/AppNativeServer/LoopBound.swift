/// Carries a loop-owned object into a closure that runs on its own loop (a thread start, an
/// `execute` hop). `@unchecked Sendable` invariant: the wrapped value is only dereferenced on the
/// loop that owns it; the wrapper merely crosses the thread boundary to get there.
public struct LoopBound<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}
