import AppNativeHTTP
@testable import AppNativeServer
import Testing

/// An exchange whose facts the test sets (the machine reads them, as it reads `HTTPExchange`'s).
private final class FakeExchange: ServedExchange, Equatable, CustomStringConvertible {
    var requestBody: HTTPExchange.RequestBodyState
    var hasResponseStarted = false
    var isResponseFinished = false
    var isAborted = false
    let name: String

    init(_ name: String, body: HTTPExchange.RequestBodyState = .complete) {
        self.name = name
        requestBody = body
    }

    /// The handler answered in full.
    func respond() {
        hasResponseStarted = true
        isResponseFinished = true
    }

    static func == (lhs: FakeExchange, rhs: FakeExchange) -> Bool { lhs === rhs }
    var description: String { name }
}

private final class FakeSession: Equatable {
    static func == (lhs: FakeSession, rhs: FakeSession) -> Bool { lhs === rhs }
}

private typealias State = ServerConnectionState<FakeExchange, Int, FakeSession>
private typealias Step = State.Step

@Suite struct ServerConnectionStateTests {
    // MARK: Keep-alive and pipelining

    @Test func keepAliveConnectionServesOneExchangeAfterAnother() {
        var state = State(choosesProtocol: false)
        #expect(state.deadline == .armed(.keepAlive))
        // The first bytes of a head start the head deadline.
        #expect(state.bytesArrived() == .consume(.arm(.head)))
        #expect(state.route(hasInput: true) == .parse)
        let first = FakeExchange("first")
        #expect(state.requestStarted(first, keepAlive: true, draining: false) == Step(deadline: .disarm, action: .serve(first)))
        // A pipelined next request waits in the buffer while the first is served.
        #expect(state.route(hasInput: true) == .hold)
        first.respond()
        #expect(state.exchangeFinished(first) == Step(deadline: .arm(.keepAlive), action: .endExchange(first, then: .keepAlive)))
        #expect(state.lifecycle == .open)
        #expect(state.route(hasInput: true) == .parse)
        #expect(state.route(hasInput: false) == .hold)
        let second = FakeExchange("second")
        #expect(state.requestStarted(second, keepAlive: true, draining: false).action == .serve(second))
        #expect(state.exchange === second)
    }

    @Test func finishingAnotherExchangeChangesNothing() {
        var state = State(choosesProtocol: false)
        let current = FakeExchange("current")
        _ = state.requestStarted(current, keepAlive: true, draining: false)
        #expect(state.exchangeFinished(FakeExchange("stale")) == .nothing)
        #expect(state.exchange === current)
    }

    @Test func connectionCloseEndsAfterTheResponseAndLingers() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("last")
        _ = state.requestStarted(exchange, keepAlive: false, draining: false)
        #expect(state.lifecycle == .lastResponse)
        #expect(state.responseHeadLeaving(isHTTP10: false, draining: false) == .close)
        exchange.respond()
        #expect(state.exchangeFinished(exchange) == Step(deadline: .keep, action: .endExchange(exchange, then: .closeAfterFlush)))
        let closes = state.closeAfterFlush()
        #expect(closes)
        #expect(state.lifecycle == .flushing)
        let closesAgain = state.closeAfterFlush()
        #expect(!closesAgain)
        // Input is still read (and dropped) so it never turns into a reset.
        #expect(state.wantsToRead(bufferedInput: 0, outputBelowWatermark: true))
        #expect(state.bytesArrived() == .drop)
        let demand = WriteDemand.none
        let drained = state.writeDrained(demand: demand).step
        #expect(drained.action == .shutDownOutput)
        #expect(state.outputShutDown(.done, peerClosed: false) == Step(deadline: .arm(.linger), action: .linger))
        #expect(state.lifecycle == .lingering)
        #expect(state.peerClosed() == Step(deadline: .keep, action: .close))
    }

    @Test func closeNotifyWaitingForRoomArmsTheWriteDeadline() {
        var state = State(choosesProtocol: false)
        _ = state.closeAfterFlush()
        #expect(state.outputShutDown(.wouldBlock, peerClosed: false) == Step(deadline: .arm(.write), action: .none))
        #expect(state.writableShutsDown)
        #expect(state.outputShutDown(.done, peerClosed: true).action == .close)
    }

    @Test func http10ClientIsToldTheConnectionStays() {
        var state = State(choosesProtocol: false)
        _ = state.requestStarted(FakeExchange("1.0"), keepAlive: true, draining: false)
        #expect(state.responseHeadLeaving(isHTTP10: true, draining: false) == .keepAlive)
        #expect(state.responseHeadLeaving(isHTTP10: false, draining: false) == .unchanged)
    }

    // MARK: Request bodies

    @Test func bodyIsReadOnlyWhenAskedForAndNotWhilePaused() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("upload", body: .unread)
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        #expect(!state.wantsToRead(bufferedInput: 0, outputBelowWatermark: true))
        #expect(state.route(hasInput: true) == .hold)
        exchange.requestBody = .reading
        #expect(state.bodyRequested(by: exchange, sendsContinue: false) == Step(deadline: .arm(.body), action: .resumeReading))
        #expect(state.wantsToRead(bufferedInput: 0, outputBelowWatermark: true))
        #expect(state.route(hasInput: true) == .parse)
        // Every read restarts the body's idle deadline.
        #expect(state.bytesArrived() == .consume(.arm(.body)))
        exchange.requestBody = .paused
        #expect(!state.wantsToRead(bufferedInput: 0, outputBelowWatermark: true))
        #expect(state.owesBodyEnd)
        exchange.requestBody = .reading
        #expect(state.bodyResumed(by: exchange).action == .resumeReading)
        exchange.requestBody = .complete
        // The body ended before the response: the response's end completes the exchange.
        #expect(state.bodyEnded() == .nothing)
        exchange.respond()
        #expect(state.exchangeFinished(exchange).action == .endExchange(exchange, then: .keepAlive))
    }

    @Test func expectContinueIsAnsweredUnlessTheResponseStarted() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("expect", body: .reading)
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        #expect(state.bodyRequested(by: exchange, sendsContinue: true).action == .continueAndResumeReading)
        exchange.hasResponseStarted = true
        #expect(state.bodyRequested(by: exchange, sendsContinue: true).action == .resumeReading)
        exchange.requestBody = .complete
        #expect(state.bodyRequested(by: exchange, sendsContinue: true) == .nothing)
    }

    @Test func responseFinishedBeforeTheBodyEndsWaitsForTheBody() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("early", body: .reading)
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        exchange.respond()
        #expect(state.exchangeFinished(exchange) == .nothing)
        exchange.requestBody = .complete
        #expect(state.bodyEnded().action == .endExchange(exchange, then: .keepAlive))
    }

    /// A handler that answers without reading the body: closing beats draining an unknown amount.
    @Test func unreadBodyClosesAfterTheResponse() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("401", body: .unread)
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        exchange.respond()
        #expect(state.exchangeFinished(exchange).action == .endExchange(exchange, then: .closeAfterFlush))
    }

    @Test func abortedExchangeWithBodyInFlightClosesAfterTheResponse() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("aborted", body: .reading)
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        exchange.isAborted = true
        #expect(state.exchangeFinished(exchange).action == .endExchange(exchange, then: .closeAfterFlush))
    }

    @Test func pipelinedInputAboveTheLimitStopsReading() {
        let state = State(choosesProtocol: false)
        #expect(state.wantsToRead(bufferedInput: State.maxBufferedInput, outputBelowWatermark: false))
        #expect(!state.wantsToRead(bufferedInput: State.maxBufferedInput + 1, outputBelowWatermark: true))
    }

    // MARK: Errors

    @Test func parseErrorIsAnsweredWithItsStatusThenCloses() {
        var state = State(choosesProtocol: false)
        #expect(state.parseFailed(status: 400) == Step(deadline: .keep, action: .sendError(status: 400, aborting: nil)))
        #expect(state.lifecycle == .lastResponse)
    }

    @Test func parseErrorInABodyAbortsItsExchange() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("bad chunk", body: .reading)
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        #expect(state.parseFailed(status: 400).action == .sendError(status: 400, aborting: exchange))
        #expect(state.exchange == nil)
    }

    @Test func parseErrorAfterTheResponseStartedClosesAtOnce() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("streaming", body: .reading)
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        exchange.hasResponseStarted = true
        #expect(state.parseFailed(status: 400).action == .abortAndClose(exchange))
    }

    @Test func clientGoneMidExchangeAbortsIt() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("gone", body: .reading)
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        #expect(state.peerClosed().action == .closeAfterFlush(.exchange(exchange)))
        #expect(state.exchange == nil)
        // Once the answer is being written, a FIN changes nothing: the client may still read it.
        _ = state.closeAfterFlush()
        #expect(state.peerClosed() == .nothing)
    }

    // MARK: Deadlines

    @Test func headDeadlineAnswers408() {
        var state = State(choosesProtocol: false)
        _ = state.bytesArrived()
        #expect(state.deadlinePassed().action == .sendError(status: 408, aborting: nil))
    }

    @Test func keepAliveDeadlineCloses() {
        var state = State(choosesProtocol: false)
        #expect(state.deadlinePassed().action == .close)
    }

    @Test func bodyDeadlineAnswers408OrClosesOnceTheResponseStarted() {
        var state = State(choosesProtocol: false)
        let slow = FakeExchange("slow", body: .reading)
        _ = state.requestStarted(slow, keepAlive: true, draining: false)
        _ = state.bodyRequested(by: slow, sendsContinue: false)
        #expect(state.deadlinePassed().action == .sendError(status: 408, aborting: slow))

        var streaming = State(choosesProtocol: false)
        let started = FakeExchange("started", body: .reading)
        _ = streaming.requestStarted(started, keepAlive: true, draining: false)
        _ = streaming.bodyRequested(by: started, sendsContinue: false)
        started.hasResponseStarted = true
        #expect(streaming.deadlinePassed().action == .abortAndClose(started))
    }

    @Test func writeDeadlineFollowsProgressAndEndsWhenDrained() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("download")
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        #expect(state.writeBlocked(progressed: false) == .arm(.write))
        // No progress: the deadline keeps running; progress restarts it.
        #expect(state.writeBlocked(progressed: false) == .keep)
        #expect(state.writeBlocked(progressed: true) == .arm(.write))
        // Drained with the exchange still running: no deadline until the next read.
        let demand = WriteDemand.none
        let drained = state.writeDrained(demand: demand).step
        #expect(drained == Step(deadline: .disarm, action: .none))
        #expect(state.bytesArrived() == .consume(.arm(.body)))
        #expect(state.deadlinePassed().action == .sendError(status: 408, aborting: exchange))
    }

    @Test func writeDeadlineAbortsTheExchangeAndCloses() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("stuck")
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        _ = state.writeBlocked(progressed: true)
        #expect(state.deadlinePassed().action == .abortAndClose(exchange))
        // A fired deadline is re-armed by a blocked write even without progress.
        #expect(state.writeBlocked(progressed: false) == .arm(.write))
    }

    @Test func drainedOutputWithoutWorkReturnsToKeepAlive() {
        var state = State(choosesProtocol: false)
        _ = state.writeBlocked(progressed: true)
        let demand = WriteDemand.none
        let drained = state.writeDrained(demand: demand).step
        #expect(drained == Step(deadline: .arm(.keepAlive), action: .none))
    }

    @Test func producerRefusedRoomHearsOnceThatTheOutputDrained() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("big")
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        let belowWatermark = state.writeDrained(demand: WriteDemand.none.afterQueuing(pendingCount: 10, highWatermark: 64))
        #expect(belowWatermark.step.action == .none)
        #expect(belowWatermark.demand == .none)
        let refused = state.writeDrained(demand: WriteDemand.none.afterQueuing(pendingCount: 64, highWatermark: 64))
        #expect(refused.step.action == .producerMayWrite(.exchange(exchange)))
        #expect(refused.demand == .none)
    }

    // MARK: Draining

    @Test func drainingClosesAnIdleConnectionNow() {
        var state = State(choosesProtocol: false)
        #expect(state.drain().action == .closeAfterFlush(.nothing))
    }

    @Test func drainingLetsTheCurrentResponseFinishThenCloses() {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("busy")
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        #expect(state.drain() == .nothing)
        #expect(state.responseHeadLeaving(isHTTP10: false, draining: true) == .close)
        exchange.respond()
        #expect(state.exchangeFinished(exchange).action == .endExchange(exchange, then: .closeAfterFlush))
    }

    @Test func requestArrivingWhileDrainingIsTheLast() {
        var state = State(choosesProtocol: false)
        _ = state.requestStarted(FakeExchange("late"), keepAlive: true, draining: true)
        #expect(state.lifecycle == .lastResponse)
    }

    // MARK: Tunnel

    @Test func tunnelIsReadUnlessPausedAndEndsWithTheClient() {
        var state = State(choosesProtocol: false)
        let upgrade = FakeExchange("upgrade")
        _ = state.requestStarted(upgrade, keepAlive: true, draining: false)
        #expect(state.tunnelStarted(7, by: FakeExchange("stale")) == .nothing)
        #expect(state.tunnelStarted(7, by: upgrade) == Step(deadline: .disarm, action: .endExchangeForTunnel(upgrade)))
        #expect(state.route(hasInput: true) == .tunnel(7))
        state.tunnelPaused()
        #expect(!state.wantsToRead(bufferedInput: 0, outputBelowWatermark: true))
        #expect(state.tunnelResumed().step.action == .resumeReading)
        #expect(state.tunnelResumed().step == .nothing)
        #expect(state.wantsToRead(bufferedInput: State.maxBufferedInput + 1, outputBelowWatermark: true))
        #expect(state.peerClosed().action == .closeAfterFlush(.tunnel(7)))
    }

    // MARK: Protocol choice and HTTP/2

    @Test func firstBytesChooseHTTP1() {
        var state = State(choosesProtocol: true)
        #expect(state.isChoosingProtocol)
        #expect(state.bytesArrived() == .consume(.arm(.head)))
        #expect(state.route(hasInput: true) == .chooseProtocol)
        state.choseHTTP1()
        #expect(!state.isChoosingProtocol)
        #expect(state.route(hasInput: true) == .parse)
    }

    @Test func http2TakesEveryByteAndKeepsItsOwnDeadlines() {
        var state = State(choosesProtocol: true)
        let session = FakeSession()
        #expect(state.startedHTTP2(session, draining: false) == .nothing)
        #expect(state.route(hasInput: false) == .http2(session))
        // HTTP/1.1's head and body deadlines do not apply.
        #expect(state.bytesArrived() == .consume(.keep))
        #expect(!state.wantsToRead(bufferedInput: 0, outputBelowWatermark: false))
        let streaming = State.HTTP2Facts(isFinished: false, hasOpenStreams: true)
        #expect(state.http2Changed(streaming) == Step(deadline: .disarm, action: .none))
        #expect(state.http2Changed(streaming) == .nothing)
        let idle = State.HTTP2Facts(isFinished: false, hasOpenStreams: false)
        #expect(state.http2Changed(idle) == Step(deadline: .arm(.keepAlive), action: .none))
        #expect(state.deadlinePassed().action == .goAwayAndCloseAfterFlush(session))
        #expect(state.http2Changed(State.HTTP2Facts(isFinished: true, hasOpenStreams: false)).action == .closeAfterFlush(.nothing))
    }

    @Test func http2StartedWhileDrainingSendsGoAway() {
        var state = State(choosesProtocol: true)
        let session = FakeSession()
        #expect(state.startedHTTP2(session, draining: true).action == .goAway(session))
        #expect(state.drain().action == .goAway(session))
        #expect(state.peerClosed().action == .closeAfterFlush(.http2(session)))
    }

    // MARK: Closing

    @Test func closeTearsDownWhatIsServedOnce() throws {
        var state = State(choosesProtocol: false)
        let exchange = FakeExchange("open")
        _ = state.requestStarted(exchange, keepAlive: true, draining: false)
        let closing = try #require(state.close() as (ending: State.Ending, owesCloseNotify: Bool)?)
        #expect(closing.ending == .exchange(exchange))
        #expect(closing.owesCloseNotify)
        let closingAgain = state.close()
        #expect(closingAgain == nil)
        #expect(!state.wantsToRead(bufferedInput: 0, outputBelowWatermark: true))
    }

    @Test func closeAfterTheGracefulShutdownOwesNoCloseNotify() throws {
        var state = State(choosesProtocol: false)
        _ = state.closeAfterFlush()
        _ = state.outputShutDown(.done, peerClosed: false)
        let closing = try #require(state.close() as (ending: State.Ending, owesCloseNotify: Bool)?)
        #expect(!closing.owesCloseNotify)
    }
}
