import AppNativeHTTP
@testable import AppNativeProxy
import Glibc
import Testing

@Suite("Upstream connection state")
struct UpstreamConnectionStateTests {
    /// The machine with the parser beside it, as `UpstreamConnection` holds them.
    struct Connection {
        var state = UpstreamConnectionState()
        var parser = HTTPResponseParser()

        mutating func begin(method: String = "GET") {
            parser.expectResponse(to: method)
            state.begin()
        }

        /// Nothing queued either way; the parser decides whether the last response left anything.
        var isDrained: Bool { !parser.isDiscardingInput }

        /// Feeds `text` as received bytes, as the connection's read loop does: after an event,
        /// parse on (an end may be pending with no bytes left); stop when nothing more was
        /// consumed or nothing is left.
        mutating func receive(_ text: String) throws {
            let action = state.received()
            #expect(action == .parse)
            let bytes = [UInt8](text)
            var position = 0
            for _ in 0..<100 where !state.isTunnel {
                // unsafe: the parser reads the view inside the closure only.
                let step = try unsafe bytes.withUnsafeBytes { buffer in
                    try unsafe parser.parse(UnsafeRawBufferPointer(rebasing: buffer[position...]))
                }
                position += step.consumed
                if step.event != nil {
                    if parser.hasSwitchedProtocols { state.startTunnel() }
                    continue
                }
                if step.consumed == 0 || position == bytes.count { break }
            }
        }
    }

    private func serving(method: String = "GET") -> Connection {
        var connection = Connection()
        connection.begin(method: method)
        let action = connection.state.connectCompleted(error: 0)
        #expect(action == .connected)
        return connection
    }

    @Test func aConnectThatFailsEndsTheExchange() {
        var state = UpstreamConnectionState()
        state.begin()
        #expect(!state.isConnected)
        let failed = state.connectCompleted(error: ECONNREFUSED)
        #expect(failed == .fail(.connectFailed(ECONNREFUSED)))
        #expect(state.isClosed)
        let later = state.connectCompleted(error: 0)
        #expect(later == .none)
    }

    @Test func aCompleteResponseLeavesTheConnectionReusable() throws {
        var connection = serving()
        #expect(connection.state.isConnected && connection.state.hasExchange)
        try connection.receive("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(connection.state.isReusable(isDrained: connection.isDrained))
        #expect(!connection.state.isReusable(isDrained: false))
        let release = connection.state.release(reusable: true, isDrained: connection.isDrained)
        #expect(release == .giveBack)
        connection.state.becameIdle(at: 5)
        #expect(connection.state.phase == .idle(since: 5))
        #expect(!connection.state.hasExchange)
        // The next exchange takes it from the pool.
        connection.begin()
        #expect(connection.state.phase == .serving(.awaitingResponse))
    }

    @Test func aResponseThatClosesTheConnectionIsNotReused() throws {
        var connection = serving()
        try connection.receive("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
        #expect(!connection.isDrained)
        let release = connection.state.release(reusable: true, isDrained: connection.isDrained)
        #expect(release == .close)
        #expect(connection.state.isClosed)
    }

    @Test func theExchangesVerdictDecides() throws {
        var connection = serving()
        try connection.receive("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let first = connection.state.release(reusable: false, isDrained: true)
        #expect(first == .close)
        let second = connection.state.release(reusable: true, isDrained: true)
        #expect(second == .none)
    }

    @Test func aCloseBeforeAnyByteIsTheRetriableKind() {
        var connection = serving()
        let end = connection.state.endOfStream()
        #expect(end == .finishResponse(otherwise: .closedBeforeResponse))
        #expect(connection.state.isClosed)
        let again = connection.state.endOfStream()
        #expect(again == .none)
    }

    @Test func aCloseMidResponseIsNot() throws {
        var connection = serving()
        try connection.receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok")
        let end = connection.state.endOfStream()
        #expect(end == .finishResponse(otherwise: .closedMidResponse))
        // The parser has no last event for a body cut short: the exchange hears the failure.
        #expect(throws: HTTPParseError.self) { _ = try connection.parser.finish() }
    }

    @Test func aBodyDelimitedByTheCloseEndsWithIt() throws {
        var connection = serving()
        try connection.receive("HTTP/1.1 200 OK\r\n\r\npartial")
        let end = connection.state.endOfStream()
        #expect(end == .finishResponse(otherwise: .closedMidResponse))
        guard case .end = try connection.parser.finish() else {
            Issue.record("the close ends a body without framing")
            return
        }
    }

    @Test func writingFailuresSayHowFarTheAnswerGot() throws {
        var before = serving()
        let cut = before.state.failed()
        #expect(cut == .close(failure: .closedBeforeResponse))
        var during = serving()
        try during.receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
        let midway = during.state.failed()
        #expect(midway == .close(failure: .closedMidResponse))
        let again = during.state.failed()
        #expect(again == .none)
    }

    @Test func bytesOnAnIdleConnectionCloseIt() throws {
        var connection = serving()
        try connection.receive("HTTP/1.1 204 No Content\r\n\r\n")
        let release = connection.state.release(reusable: true, isDrained: connection.isDrained)
        #expect(release == .giveBack)
        connection.state.becameIdle(at: 0)
        let received = connection.state.received()
        #expect(received == .close)
    }

    @Test func theDeadlineIsTheExchangesWhileItHasOneAndTheIdleExpiryAfter() throws {
        var connection = serving()
        let first = connection.state.deadlinePassed()
        #expect(first == .tellExchange)
        try connection.receive("HTTP/1.1 204 No Content\r\n\r\n")
        _ = connection.state.release(reusable: true, isDrained: connection.isDrained)
        connection.state.becameIdle(at: 0)
        let idle = connection.state.deadlinePassed()
        #expect(idle == .close)
        #expect(connection.state.isClosed)
        let closed = connection.state.deadlinePassed()
        #expect(closed == .none)
    }

    @Test func aSwitchTurnsTheConnectionIntoATunnel() throws {
        var connection = serving()
        try connection.receive("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
        #expect(connection.state.isTunnel)
        let received = connection.state.received()
        #expect(received == .tunnel)
        #expect(!connection.state.isReusable(isDrained: true))
        let end = connection.state.endOfStream()
        #expect(end == .close(failure: .closedMidResponse))
    }

    @Test func aTunnelClosingAfterItsLastFrameDiscardsWhatComes() {
        var state = serving().state
        state.startTunnel()
        let closing = state.closeAfterFlush(hasQueuedBytes: true)
        #expect(closing == .none)
        #expect(state.phase == .closingAfterFlush)
        let received = state.received()
        #expect(received == .discard)
        let drained = state.drained()
        #expect(drained)
        #expect(state.isClosed)
    }

    @Test func closingAfterFlushWithNothingQueuedClosesAtOnce() {
        var state = serving().state
        state.startTunnel()
        let closing = state.closeAfterFlush(hasQueuedBytes: false)
        #expect(closing == .close)
        #expect(state.isClosed)
        let again = state.close()
        #expect(!again)
    }
}
