import AppNativeCore
import AppNativeHTTP
import AppNativeServer

/// The request body of an `HTTPExchange` as the asynchronous sequence ``NativeRoutes`` reads:
/// the bridge between the exchange's loop, which delivers chunks, and the task answering it.
///
/// Reading starts with the first `next()`, so nothing is read before the routes authenticated the
/// request. At most ``highWatermark`` bytes wait in the bridge: past that the exchange stops
/// reading its socket until the task has taken them down to ``lowWatermark``, so a slow task
/// never makes an upload pile up in memory. ``close()`` (after the answer) drops whatever still
/// arrives and lets the exchange read on, as a handler that stopped caring about the body does.
final class ExchangeBodyStream: AsyncSequence, Sendable {
    typealias Element = [UInt8]

    /// Waiting bytes at which the exchange pauses its body.
    static let highWatermark = 1 << 20
    /// Waiting bytes at which a paused body resumes.
    static let lowWatermark = 1 << 18

    /// The client went away before the body ended.
    struct ClientGone: Error {}

    private let state: Locked<BodyBridgeState>
    private let exchange: LoopBound<ExchangeReference>

    /// Becomes the exchange's delegate (its body and its abort). Call on the exchange's loop.
    init(_ exchange: HTTPExchange) {
        state = Locked(BodyBridgeState(hasBody: exchange.hasRequestBody))
        self.exchange = LoopBound(ExchangeReference(exchange), on: exchange.loop)
        exchange.delegate = self
    }

    /// The answer is out: later chunks are dropped, and a paused body reads on. Call on the loop.
    func close() {
        perform(state.withLock { $0.closed() }, onLoop: true)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let stream: ExchangeBodyStream

        mutating func next() async throws -> [UInt8]? {
            try await stream.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }

    private func next() async throws -> [UInt8]? {
        try await withCheckedThrowingContinuation { continuation in
            perform(state.withLock { $0.next(continuation) }, onLoop: false)
        }
    }

    private func perform(_ action: BodyBridgeState.Action, onLoop: Bool) {
        if let control = action.body {
            if onLoop {
                exchange.value.control(control)
            } else {
                let exchange = exchange
                exchange.loop.execute { exchange.value.control(control) }
            }
        }
        if case let (waiter, result)? = action.resume { waiter.resume(with: result) }
    }
}

extension ExchangeBodyStream: HTTPExchangeDelegate {
    func exchange(_ exchange: HTTPExchange, didReceiveBody chunk: ArraySlice<UInt8>) {
        perform(state.withLock { $0.received(Array(chunk)) }, onLoop: true)
    }

    func exchange(_ exchange: HTTPExchange, didEndBodyWith trailers: HTTPHeaders?) {
        perform(state.withLock { $0.ended() }, onLoop: true)
    }

    func exchangeDidAbort(_ exchange: HTTPExchange) {
        perform(state.withLock { $0.failed() }, onLoop: true)
    }
}

/// The exchange, held weakly: an exchange that ended is not kept alive by a task still reading.
final class ExchangeReference {
    private weak var exchange: HTTPExchange?

    init(_ exchange: HTTPExchange) { self.exchange = exchange }

    func control(_ control: BodyBridgeState.BodyControl) {
        switch control {
        case .start: exchange?.readBody()
        case .pause: exchange?.pauseBody()
        case .resume: exchange?.resumeBody()
        }
    }
}

/// What the body bridge holds, with every transition in one place: each input returns what to do
/// outside the lock (resume the waiting task, start, pause or resume the exchange's body).
struct BodyBridgeState: Sendable {
    enum Phase: Sendable {
        /// Nothing asked for yet: the exchange has not started reading.
        case idle
        case streaming
        case ended
        case failed
        /// The answer was sent; nothing is kept any more.
        case closed
    }

    enum BodyControl: Sendable {
        case start, pause, resume
    }

    struct Action: Sendable {
        var resume: (CheckedContinuation<[UInt8]?, any Error>, Result<[UInt8]?, any Error>)?
        var body: BodyControl?
    }

    private var phase: Phase
    private var chunks: [[UInt8]] = []
    /// Index of the next chunk to hand out (the array is compacted once it is all taken).
    private var nextChunk = 0
    private var waitingBytes = 0
    private var isPaused = false
    private var waiter: CheckedContinuation<[UInt8]?, any Error>?

    init(hasBody: Bool) {
        phase = hasBody ? .idle : .ended
    }

    /// The task asks for the next chunk.
    mutating func next(_ continuation: CheckedContinuation<[UInt8]?, any Error>) -> Action {
        precondition(waiter == nil, "one reader at a time")
        if nextChunk < chunks.count {
            let chunk = chunks[nextChunk]
            nextChunk += 1
            if nextChunk == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                nextChunk = 0
            }
            waitingBytes -= chunk.count
            var action = Action(resume: (continuation, .success(chunk)))
            if isPaused && waitingBytes <= ExchangeBodyStream.lowWatermark {
                isPaused = false
                action.body = .resume
            }
            return action
        }
        switch phase {
        case .idle:
            phase = .streaming
            waiter = continuation
            return Action(body: .start)
        case .streaming:
            waiter = continuation
            return Action()
        case .ended, .closed:
            return Action(resume: (continuation, .success(nil)))
        case .failed:
            return Action(resume: (continuation, .failure(ExchangeBodyStream.ClientGone())))
        }
    }

    /// The exchange delivered a chunk.
    mutating func received(_ chunk: [UInt8]) -> Action {
        guard phase == .streaming else { return Action() }
        if let waiter {
            self.waiter = nil
            return Action(resume: (waiter, .success(chunk)))
        }
        chunks.append(chunk)
        waitingBytes += chunk.count
        guard !isPaused, waitingBytes >= ExchangeBodyStream.highWatermark else { return Action() }
        isPaused = true
        return Action(body: .pause)
    }

    /// The body is complete.
    mutating func ended() -> Action {
        guard phase == .streaming || phase == .idle else { return Action() }
        phase = .ended
        return takeWaiter(.success(nil))
    }

    /// The client went away.
    mutating func failed() -> Action {
        guard phase != .closed else { return Action() }
        phase = .failed
        return takeWaiter(.failure(ExchangeBodyStream.ClientGone()))
    }

    /// The answer was sent.
    mutating func closed() -> Action {
        phase = .closed
        chunks = []
        nextChunk = 0
        waitingBytes = 0
        var action = takeWaiter(.success(nil))
        if isPaused {
            isPaused = false
            action.body = .resume
        }
        return action
    }

    private mutating func takeWaiter(_ result: Result<[UInt8]?, any Error>) -> Action {
        guard let waiter else { return Action() }
        self.waiter = nil
        return Action(resume: (waiter, result))
    }
}
