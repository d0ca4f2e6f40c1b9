/// Carries a loop-owned object into a closure that runs on its own loop (a thread start, an
/// `execute` hop), as swift-nio's `NIOLoopBound` does.
///
/// `@unchecked Sendable` invariant: the wrapped value is only dereferenced on the loop that owns
/// it (or before that loop runs, by the thread setting it up); the wrapper merely crosses the
/// thread boundary to get there. Debug builds check the invariant on every access.
public struct LoopBound<Value>: @unchecked Sendable {
    private let wrapped: Value
    public let loop: EventLoop

    public init(_ value: Value, on loop: EventLoop) {
        wrapped = value
        self.loop = loop
    }

    public var value: Value {
        loop.assertOwned()
        return wrapped
    }
}
