import AppNativeHTTP
@testable import AppNativeProxy
import Glibc
import Testing

@Suite("Upstream connection state")
struct UpstreamConnectionStateTests {
    /// Feeds `text` to the connection as received bytes; returns the parser's events.
    @discardableResult
    private func receive(_ text: String, on state: inout UpstreamConnectionState) throws -> [HTTPParserEvent<HTTPResponseHead>] {
        let check1 = state.received() == .parse
        #expect(check1)
        let bytes = [UInt8](text)
        var events: [HTTPParserEvent<HTTPResponseHead>] = []
        var position = 0
        // As the connection's read loop does: after an event, parse on (an end may be pending
        // with no bytes left); otherwise stop when nothing more was consumed or nothing is left.
        for _ in 0..<100 where !state.isTunnel {
            let step = try bytes.withUnsafeBytes { buffer in
                try state.parse(UnsafeRawBufferPointer(rebasing: buffer[position...]))
            }
            position += step.consumed
            if let event = step.event {
                events.append(event)
                continue
            }
            if step.consumed == 0 || position == bytes.count { break }
        }
        return events
    }

    private func serving(method: String = "GET") -> UpstreamConnectionState {
        var state = UpstreamConnectionState()
        state.begin(method: method)
        let check2 = state.connectCompleted(error: 0) == .connected
        #expect(check2)
        return state
    }

    @Test func aConnectThatFailsEndsTheExchange() {
        var state = UpstreamConnectionState()
        state.begin(method: "GET")
        #expect(!state.isConnected)
        let check3 = state.connectCompleted(error: ECONNREFUSED) == .fail(.connectFailed(ECONNREFUSED))
        #expect(check3)
        #expect(state.isClosed)
        let check4 = state.connectCompleted(error: 0) == .none
        #expect(check4)
    }

    @Test func aCompleteResponseLeavesTheConnectionReusable() throws {
        var state = serving()
        #expect(state.isConnected && state.hasExchange)
        try receive("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", on: &state)
        #expect(state.isReusable(isDrained: true))
        #expect(!state.isReusable(isDrained: false))
        let check5 = state.release(reusable: true, isDrained: true) == .giveBack
        #expect(check5)
        state.becameIdle(at: 5)
        #expect(state.phase == .idle(since: 5))
        #expect(!state.hasExchange)
        // The next exchange takes it from the pool.
        state.begin(method: "GET")
        #expect(state.phase == .serving(.awaitingResponse))
    }

    @Test func aResponseThatClosesTheConnectionIsNotReused() throws {
        var state = serving()
        try receive("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", on: &state)
        #expect(!state.isReusable(isDrained: true))
        let check6 = state.release(reusable: true, isDrained: true) == .close
        #expect(check6)
        #expect(state.isClosed)
    }

    @Test func theExchangesVerdictDecides() throws {
        var state = serving()
        try receive("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", on: &state)
        let check7 = state.release(reusable: false, isDrained: true) == .close
        #expect(check7)
        let check8 = state.release(reusable: true, isDrained: true) == .none
        #expect(check8)
    }

    @Test func aCloseBeforeAnyByteIsTheRetriableKind() {
        var state = serving()
        let check9 = state.endOfStream() == .close(failure: .closedBeforeResponse)
        #expect(check9)
        #expect(state.isClosed)
        let check10 = state.endOfStream() == .none
        #expect(check10)
    }

    @Test func aCloseMidResponseIsNot() throws {
        var state = serving()
        try receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok", on: &state)
        let check11 = state.endOfStream() == .close(failure: .closedMidResponse)
        #expect(check11)
    }

    @Test func aBodyDelimitedByTheCloseEndsWithIt() throws {
        var state = serving()
        try receive("HTTP/1.1 200 OK\r\n\r\npartial", on: &state)
        guard case .finish(.end) = state.endOfStream() else {
            Issue.record("the close ends a body without framing")
            return
        }
        #expect(state.isClosed)
    }

    @Test func writingFailuresSayHowFarTheAnswerGot() throws {
        var before = serving()
        let check12 = before.failed() == .close(failure: .closedBeforeResponse)
        #expect(check12)
        var during = serving()
        try receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", on: &during)
        let check13 = during.failed() == .close(failure: .closedMidResponse)
        #expect(check13)
        let check14 = during.failed() == .none
        #expect(check14)
    }

    @Test func bytesOnAnIdleConnectionCloseIt() throws {
        var state = serving()
        try receive("HTTP/1.1 204 No Content\r\n\r\n", on: &state)
        let check15 = state.release(reusable: true, isDrained: true) == .giveBack
        #expect(check15)
        state.becameIdle(at: 0)
        let check16 = state.received() == .close
        #expect(check16)
    }

    @Test func theDeadlineIsTheExchangesWhileItHasOneAndTheIdleExpiryAfter() throws {
        var state = serving()
        let check17 = state.deadlinePassed() == .tellExchange
        #expect(check17)
        try receive("HTTP/1.1 204 No Content\r\n\r\n", on: &state)
        _ = state.release(reusable: true, isDrained: true)
        state.becameIdle(at: 0)
        let check18 = state.deadlinePassed() == .close
        #expect(check18)
        #expect(state.isClosed)
        let check19 = state.deadlinePassed() == .none
        #expect(check19)
    }

    @Test func aSwitchTurnsTheConnectionIntoATunnel() throws {
        var state = serving()
        try receive("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", on: &state)
        state.startTunnel()
        #expect(state.isTunnel)
        let check20 = state.received() == .tunnel
        #expect(check20)
        #expect(!state.isReusable(isDrained: true))
        let check21 = state.endOfStream() == .close(failure: .closedMidResponse)
        #expect(check21)
    }

    @Test func aTunnelClosingAfterItsLastFrameDiscardsWhatComes() {
        var state = serving()
        state.startTunnel()
        let check22 = state.closeAfterFlush(hasQueuedBytes: true) == .none
        #expect(check22)
        #expect(state.phase == .closingAfterFlush)
        let check23 = state.received() == .discard
        #expect(check23)
        let check24 = state.drained()
        #expect(check24)
        #expect(state.isClosed)
    }

    @Test func closingAfterFlushWithNothingQueuedClosesAtOnce() {
        var state = serving()
        state.startTunnel()
        let check25 = state.closeAfterFlush(hasQueuedBytes: false) == .close
        #expect(check25)
        #expect(state.isClosed)
        let check26 = !state.close()
        #expect(check26)
    }
}
