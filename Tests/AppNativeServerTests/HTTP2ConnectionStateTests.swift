import AppNativeHTTP
@testable import AppNativeServer
import Testing

@Suite struct HTTP2ConnectionStateTests {
    private static let post: HTTP2HeaderList = .fields([
        HTTP2Field(":method", "POST"), HTTP2Field(":scheme", "https"), HTTP2Field(":path", "/upload"),
        HTTP2Field(":authority", "a.example"),
    ])

    @Test func aStreamCarriesOneExchangeFromHeadToClose() throws {
        var state = HTTP2ConnectionState(limits: HTTPLimits())
        guard case .startExchange(1, let head, .chunked)? = state.handle(.requestHead(stream: 1, Self.post, endsStream: false)) else {
            Issue.record("no exchange")
            return
        }
        #expect(head.method == "POST")
        #expect(state.handle(.data(stream: 1, [1, 2, 3])) == .deliverBody(stream: 1, [1, 2, 3]))
        #expect(state.handle(.endOfStream(stream: 1)) == .endBody(stream: 1, trailers: nil))
        #expect(state.openStreamCount == 1)
        #expect(state.handle(.closed(stream: 1, errorCode: 0)) == .closed(stream: 1, hadExchange: true))
        #expect(state.openStreamCount == 0)
        #expect(state.handle(.closed(stream: 1, errorCode: 0)) == nil)
    }

    @Test func trailersEndTheBody() {
        var state = HTTP2ConnectionState(limits: HTTPLimits())
        _ = state.handle(.requestHead(stream: 3, Self.post, endsStream: false))
        var expected = HTTPHeaders()
        expected.add(name: "grpc-status", value: "0")
        #expect(state.handle(.trailers(stream: 3, .fields([HTTP2Field("grpc-status", "0")]))) == .endBody(stream: 3, trailers: expected))
        #expect(state.handle(.trailers(stream: 5, .fields([]))) == nil)
    }

    /// RFC 9113 §8.1: no pseudo-header fields in trailers.
    @Test func pseudoHeaderInTrailersResets() {
        var state = HTTP2ConnectionState(limits: HTTPLimits())
        _ = state.handle(.requestHead(stream: 3, Self.post, endsStream: false))
        #expect(state.handle(.trailers(stream: 3, .fields([HTTP2Field(":path", "/")]))) == .reset(stream: 3, code: HTTP2Session.protocolError))
    }

    /// MAX_BODY_BYTES holds for a body of unknown length as it arrives; what follows is dropped.
    @Test func bodyOverTheLimitIsRefused() {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 4
        var state = HTTP2ConnectionState(limits: limits)
        _ = state.handle(.requestHead(stream: 1, Self.post, endsStream: false))
        #expect(state.handle(.data(stream: 1, [1, 2, 3])) == .deliverBody(stream: 1, [1, 2, 3]))
        #expect(state.handle(.data(stream: 1, [4, 5])) == .refuseBody(stream: 1, status: 413))
        #expect(state.handle(.data(stream: 1, [6])) == .discard(stream: 1, count: 1))
        #expect(state.handle(.endOfStream(stream: 1)) == nil)
        #expect(state.handle(.closed(stream: 1, errorCode: 0)) == .closed(stream: 1, hadExchange: false))
    }

    @Test func oversizedHeaderListIsAnswered431() {
        var state = HTTP2ConnectionState(limits: HTTPLimits())
        #expect(state.handle(.requestHead(stream: 1, .tooLarge, endsStream: true)) == .answer(stream: 1, status: 431))
    }

    @Test func malformedHeadIsResetWithoutAnExchange() {
        var state = HTTP2ConnectionState(limits: HTTPLimits())
        let malformed: HTTP2HeaderList = .fields([HTTP2Field(":method", "GET"), HTTP2Field(":path", "/")])
        #expect(state.handle(.requestHead(stream: 1, malformed, endsStream: true)) == .reset(stream: 1, code: HTTP2Session.protocolError))
        #expect(state.openStreamCount == 0)
        #expect(state.handle(.data(stream: 1, [1])) == .discard(stream: 1, count: 1))
    }
}
