/// The one way a loop-owned handler waits for work that runs off its loop (a key reload, the
/// authorization hook, the push API): the exchange stays parked in the loop's table under a
/// ticket, the work runs in a `Task`, and its result comes back to the loop, where the exchange
/// is taken out again and resumed. Only the ticket and the `Sendable` result cross threads, so
/// connection state never leaves its loop.
///
/// An exchange whose client went away while it waited is dropped, not resumed.
public final class OffLoopWait<Parked> {
    private var parked: [Int: (exchange: HTTPExchange, state: Parked)] = [:]
    private var nextTicket = 0
    private let loop: EventLoop

    public init(loop: EventLoop) {
        self.loop = loop
    }

    /// Parks `exchange` with `state`, runs `work` off the loop, then calls `resume` on the loop.
    public func wait<Result: Sendable>(
        _ exchange: HTTPExchange,
        with state: Parked,
        for work: @escaping @Sendable () async -> Result,
        then resume: @escaping (HTTPExchange, Parked, Result) -> Void
    ) {
        nextTicket += 1
        let ticket = nextTicket
        parked[ticket] = (exchange, state)
        let waiting = LoopBound((self, resume), on: loop)
        let loop = loop
        Task {
            let result = await work()
            loop.execute {
                let (table, resume) = waiting.value
                guard let entry = table.parked.removeValue(forKey: ticket), !entry.exchange.isAborted else { return }
                resume(entry.exchange, entry.state, result)
            }
        }
    }

    /// How many exchanges are parked.
    public var count: Int { parked.count }
}

@available(*, unavailable, message: "loop-owned")
extension OffLoopWait: Sendable {}
