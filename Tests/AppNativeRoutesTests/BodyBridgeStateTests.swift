import AppNativeCore
@testable import AppNativeRoutes
import Testing

/// The HTTPServer adapter's body bridge as a state machine: when it starts, pauses and resumes the
/// exchange's body, and what the reading task gets.
@Suite struct BodyBridgeStateTests {
    typealias Control = BodyBridgeState.BodyControl

    /// One `next()` of the reading task: the chunk (or nil at the end) and what the bridge asked
    /// of the exchange.
    func next(_ state: Locked<BodyBridgeState>) async throws -> (chunk: [UInt8]?, control: Control?) {
        let control = Locked<Control?>(nil)
        let chunk = try await withCheckedThrowingContinuation { continuation in
            let action = state.withLock { $0.next(continuation) }
            control.withLock { $0 = action.body }
            if case let (waiter, result)? = action.resume { waiter.resume(with: result) }
        }
        return (chunk, control.withLock { $0 })
    }

    /// Delivers `chunk` to a reader that is waiting for it; chunks offered before the reader
    /// asked (the body not started) are dropped by the bridge, so this offers until one is taken.
    func deliverToWaitingReader(_ state: Locked<BodyBridgeState>, _ chunk: [UInt8]) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let action = state.withLock { $0.received(chunk) }
            if case let (waiter, result)? = action.resume {
                waiter.resume(with: result)
                return
            }
            await Task.yield()
        }
        Issue.record("the reader never waited")
    }

    @Test func noBodyEndsAtOnce() async throws {
        let state = Locked(BodyBridgeState(hasBody: false))
        let first = try await next(state)
        #expect(first.chunk == nil)
        #expect(first.control == nil)
    }

    @Test func readingStartsWithTheFirstNextThenPausesAndResumesAtTheWatermarks() async throws {
        let state = Locked(BodyBridgeState(hasBody: true))
        async let first = next(state)
        try await deliverToWaitingReader(state, [1])
        let started = try await first
        #expect(started.chunk == [1])
        #expect(started.control == .start)

        // Nobody reads: chunks wait until the high watermark, which pauses the body once.
        let piece = [UInt8](repeating: 7, count: 64 << 10)
        var pauses = 0
        var waiting = 0
        while waiting < ExchangeBodyStream.highWatermark {
            let action = state.withLock { $0.received(piece) }
            waiting += piece.count
            if action.body == .pause { pauses += 1 }
            #expect(action.body == nil || waiting >= ExchangeBodyStream.highWatermark)
        }
        #expect(pauses == 1)
        #expect(state.withLock { $0.received(piece) }.body == nil)
        waiting += piece.count

        // The reader takes them down; the body resumes once at the low watermark.
        var resumes = 0
        while waiting > 0 {
            let taken = try await next(state)
            #expect(taken.chunk == piece)
            waiting -= piece.count
            if taken.control == .resume {
                resumes += 1
                #expect(waiting <= ExchangeBodyStream.lowWatermark)
            }
        }
        #expect(resumes == 1)
        #expect(state.withLock { $0.ended() }.body == nil)
        #expect(try await next(state).chunk == nil)
    }

    @Test func aClientThatLeftIsAnErrorForTheReader() async throws {
        let state = Locked(BodyBridgeState(hasBody: true))
        async let first = next(state)
        try await deliverToWaitingReader(state, [1])
        _ = try await first
        _ = state.withLock { $0.failed() }
        await #expect(throws: ExchangeBodyStream.ClientGone.self) { _ = try await next(state) }
    }

    @Test func closingDropsWaitingChunksAndResumesAPausedBody() async throws {
        let state = Locked(BodyBridgeState(hasBody: true))
        async let first = next(state)
        try await deliverToWaitingReader(state, [1])
        _ = try await first
        let big = [UInt8](repeating: 1, count: ExchangeBodyStream.highWatermark)
        #expect(state.withLock { $0.received(big) }.body == .pause)
        #expect(state.withLock { $0.closed() }.body == .resume)
        #expect(state.withLock { $0.received(big) }.body == nil)
        #expect(try await next(state).chunk == nil)
    }
}
