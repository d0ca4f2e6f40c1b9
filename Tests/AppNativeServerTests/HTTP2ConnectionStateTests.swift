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
        #expect(state.openStreamCount == 1)
        state.exchangeEnded(stream: 1)
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

    private static let webSocket: HTTP2HeaderList = .fields([
        HTTP2Field(":method", "CONNECT"), HTTP2Field(":protocol", "websocket"), HTTP2Field(":scheme", "https"),
        HTTP2Field(":path", "/chat"), HTTP2Field(":authority", "a.example"), HTTP2Field("sec-websocket-version", "13"),
    ])

    /// RFC 8441: a WebSocket stream's DATA frames are tunnel bytes (no body limit), its
    /// END_STREAM the client's end of the tunnel, and a trailer section has no place on it.
    @Test func webSocketStreamCarriesTunnelBytes() {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 2
        var state = HTTP2ConnectionState(limits: limits)
        guard case .startWebSocket(1, let head)? = state.handle(.requestHead(stream: 1, Self.webSocket, endsStream: false)) else {
            Issue.record("no WebSocket exchange")
            return
        }
        #expect(head.headers.first("Upgrade") == "websocket")
        #expect(state.handle(.data(stream: 1, [1, 2, 3, 4])) == .tunnelData(stream: 1, [1, 2, 3, 4]))
        #expect(state.handle(.endOfStream(stream: 1)) == .tunnelEnded(stream: 1))
        _ = state.handle(.requestHead(stream: 3, Self.webSocket, endsStream: false))
        #expect(state.handle(.trailers(stream: 3, .fields([]))) == .reset(stream: 3, code: HTTP2Session.protocolError))
    }

    /// SETTINGS_MAX_CONCURRENT_STREAMS held by the gateway itself: a stream beyond it is refused.
    /// A stream the client reset still counts while its exchange winds down (rapid reset).
    @Test func streamsBeyondTheLimitAreRefused() {
        var state = HTTP2ConnectionState(limits: HTTPLimits(), maxStreams: 2)
        guard case .startExchange? = state.handle(.requestHead(stream: 1, Self.post, endsStream: false)),
            case .startExchange? = state.handle(.requestHead(stream: 3, Self.post, endsStream: false))
        else {
            Issue.record("streams within the limit refused")
            return
        }
        #expect(state.handle(.requestHead(stream: 5, Self.post, endsStream: false)) == .reset(stream: 5, code: HTTP2Session.refusedStream))
        // The client resets stream 1: nghttp2 closes it, its exchange has not ended yet.
        #expect(state.handle(.closed(stream: 1, errorCode: 8)) == .closed(stream: 1, hadExchange: true))
        #expect(state.handle(.requestHead(stream: 7, Self.post, endsStream: false)) == .reset(stream: 7, code: HTTP2Session.refusedStream))
        state.exchangeEnded(stream: 1)
        guard case .startExchange(9, _, _)? = state.handle(.requestHead(stream: 9, Self.post, endsStream: false)) else {
            Issue.record("a stream within the limit refused")
            return
        }
        // An exchange that ended before its stream closed: the stream counts until nghttp2 closes it.
        state.exchangeEnded(stream: 3)
        #expect(state.handle(.data(stream: 3, [1])) == .discard(stream: 3, count: 1))
        #expect(state.openStreamCount == 2)
        #expect(state.handle(.closed(stream: 3, errorCode: 0)) == .closed(stream: 3, hadExchange: false))
        #expect(state.openStreamCount == 1)
    }
}
