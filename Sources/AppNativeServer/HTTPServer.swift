public import AppNativeCore
import Foundation
import Glibc

/// The HTTP/1.1 server: N event loops, each with its own `SO_REUSEPORT` listener, its own
/// connections and its own handler instance (docs/style.md §5).
public final class HTTPServer: @unchecked Sendable {
    // Invariant: `contexts`, `acceptors` and `threads` are written in `start()` before any loop
    // runs and read afterwards only through `loop.execute` hops onto the owning loop.
    public let configuration: ServerConfiguration
    public let loops: [EventLoop]
    private var contexts: [LoopContext] = []
    private var acceptors: [Acceptor] = []
    private var threads: [Thread] = []
    private let shared: ServerShared
    private let logger: Logger
    private let finished = Locked(0)
    private let finishedSignal = DispatchSemaphore(value: 0)
    /// The address actually bound (port resolved when 0 was asked).
    public private(set) var boundAddress: SocketAddress

    /// - Parameter makeHandler: builds one handler per loop (called on the starting thread).
    public init(
        configuration: ServerConfiguration,
        metrics: MetricsRegistry = .shared,
        logger: Logger = Logger(),
        makeHandler: (EventLoop) -> any HTTPExchangeHandler
    ) throws(SystemCallError) {
        precondition(configuration.eventLoops >= 1, "at least one event loop")
        self.configuration = configuration
        self.logger = logger
        shared = ServerShared(metrics: metrics)
        var loops = [EventLoop]()
        for index in 0..<configuration.eventLoops { loops.append(try EventLoop(index: index)) }
        self.loops = loops
        // The first listener resolves port 0; the others bind the same port with SO_REUSEPORT.
        var address = configuration.listenAddress
        for loop in loops {
            let socket = try ListeningSocket(binding: address, reusePort: true)
            address = socket.address
            let context = LoopContext(loop: loop, configuration: configuration, handler: makeHandler(loop), shared: shared)
            contexts.append(context)
            acceptors.append(Acceptor(socket: socket, context: context))
        }
        boundAddress = address
    }

    /// Starts one thread per loop. Returns at once.
    public func start() {
        for (index, loop) in loops.enumerated() {
            let bound = LoopBound((contexts[index], acceptors[index]), on: loop)
            let thread = Thread { [self] in
                let acceptor = bound.value.1
                do {
                    try loop.register(acceptor.socket.fd, events: .readable, handler: acceptor)
                } catch {
                    logger.error("cannot register listener", ["error": "\(error)"])
                }
                loop.run()
                finished.withLock { $0 += 1 }
                finishedSignal.signal()
            }
            thread.name = "appnative-loop-\(index)"
            thread.stackSize = 1 << 20
            threads.append(thread)
            thread.start()
        }
    }

    /// Graceful shutdown (docs/style.md §5): stop accepting, let in-flight exchanges finish, close idle
    /// connections, and force-close whatever remains at `deadline`. Blocks until the loops stopped.
    public func shutdown(gracePeriod: Duration) {
        for (index, loop) in loops.enumerated() {
            let bound = LoopBound((contexts[index], acceptors[index]), on: loop)
            loop.execute {
                let (context, acceptor) = bound.value
                context.isDraining = true
                loop.deregister(acceptor.socket.fd)
                acceptor.socket.close()
                for connection in context.connections { connection.drain() }
                self.stopWhenIdle(context, forceAt: loop.nowNanoseconds + gracePeriod.wholeNanoseconds)
            }
        }
        for _ in loops { finishedSignal.wait() }
    }

    private func stopWhenIdle(_ context: LoopContext, forceAt deadline: UInt64) {
        if context.connections.isEmpty {
            context.loop.stop()
            return
        }
        if context.loop.nowNanoseconds >= deadline {
            for connection in context.connections { connection.close() }
            context.loop.stop()
            return
        }
        context.loop.schedule(after: .milliseconds(20)) { [self] in stopWhenIdle(context, forceAt: deadline) }
    }

    /// Open connections across all loops.
    public var openConnections: Int { shared.openConnections.current }
}
