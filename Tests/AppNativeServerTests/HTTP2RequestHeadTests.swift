import AppNativeHTTP
@testable import AppNativeServer
import Testing

@Suite struct HTTP2RequestHeadTests {
    private static func fields(_ pairs: [(String, String)]) -> [HTTP2Field] {
        pairs.map { HTTP2Field($0.0, $0.1) }
    }

    private static let get: [(String, String)] = [
        (":method", "GET"), (":scheme", "https"), (":path", "/api/items?x=1"), (":authority", "app.example.com"),
    ]

    private static func make(_ pairs: [(String, String)], endsStream: Bool = true, limits: HTTPLimits = HTTPLimits())
        -> Result<(HTTPRequestHead, HTTPBodyFraming), HTTP2RequestHead.Refusal>
    {
        HTTP2RequestHead.make(fields(pairs), endsStream: endsStream, limits: limits).map { request in
            switch request {
            case .exchange(let head, let framing): (head, framing)
            case .webSocket(let head): (head, .none)
            }
        }
    }

    private static let webSocket: [(String, String)] = [
        (":method", "CONNECT"), (":protocol", "websocket"), (":scheme", "https"), (":path", "/chat?room=1"),
        (":authority", "app.example.com"), ("sec-websocket-version", "13"), ("origin", "https://app.example.com"),
    ]

    /// RFC 8441 §5: an extended CONNECT for a WebSocket becomes the HTTP/1.1 upgrade request, so
    /// that every upgrade rule applies; the key is never the client's.
    @Test func extendedConnectBecomesTheUpgradeRequest() throws {
        let request = HTTP2RequestHead.make(
            Self.fields(Self.webSocket + [("sec-websocket-key", "AAAAAAAAAAAAAAAAAAAAAA==")]), endsStream: false, limits: HTTPLimits())
        guard case .success(.webSocket(let head)) = request else {
            Issue.record("not a WebSocket: \(request)")
            return
        }
        #expect(head.method == "GET")
        #expect(head.target == "/chat?room=1")
        #expect(head.headers.first("Host") == "app.example.com")
        #expect(head.headers.first("Upgrade") == "websocket")
        #expect(head.headers.containsToken("upgrade", inField: "Connection"))
        #expect(head.headers.first("Origin") == "https://app.example.com")
        #expect(head.headers.first("Sec-WebSocket-Key") == nil)
    }

    /// RFC 8441 §4: :protocol only on CONNECT, with :scheme, :path and :authority; protocols
    /// other than websocket are not implemented (501, as a plain CONNECT); RFC 6455's version 13
    /// is required (400).
    @Test func extendedConnectRules() {
        let withoutPath = Self.webSocket.filter { $0.0 != ":path" }
        guard case .failure(.malformed) = Self.make(withoutPath, endsStream: false) else {
            Issue.record("accepted without :path")
            return
        }
        let onGet = [(":method", "GET")] + Self.webSocket.dropFirst()
        guard case .failure(.malformed) = Self.make(Array(onGet), endsStream: false) else {
            Issue.record("accepted :protocol on GET")
            return
        }
        let other = Self.webSocket.map { $0.0 == ":protocol" ? ($0.0, "connect-udp") : $0 }
        guard case .failure(.answer(status: 501)) = Self.make(other, endsStream: false) else {
            Issue.record("accepted another protocol")
            return
        }
        let noVersion = Self.webSocket.filter { $0.0 != "sec-websocket-version" }
        guard case .failure(.answer(status: 400)) = Self.make(noVersion, endsStream: false) else {
            Issue.record("accepted without sec-websocket-version")
            return
        }
    }

    @Test func getBecomesTheHeadAnHTTP11ClientWouldSend() throws {
        let (head, framing) = try Self.make(Self.get + [("accept", "*/*")]).get()
        #expect(head.method == "GET")
        #expect(head.target == "/api/items?x=1")
        #expect(head.version == HTTPVersion(major: 2, minor: 0))
        #expect(head.headers.first("Host") == "app.example.com")
        #expect(head.headers.first("Accept") == "*/*")
        #expect(framing == .none)
    }

    /// RFC 9113 §8.1: without END_STREAM on HEADERS a body follows; its length is known only
    /// from content-length.
    @Test func bodyFraming() throws {
        let post = [(":method", "POST"), (":scheme", "https"), (":path", "/"), (":authority", "a.example")]
        #expect(try Self.make(post, endsStream: false).get().1 == .chunked)
        #expect(try Self.make(post + [("content-length", "5")], endsStream: false).get().1 == .contentLength(5))
        #expect(try Self.make(post + [("content-length", "0")], endsStream: true).get().1 == .contentLength(0))
        #expect(throws: HTTP2RequestHead.Refusal.self) { try Self.make(post + [("content-length", "5")], endsStream: true).get() }
    }

    /// RFC 9113 §8.2.3: cookie crumbs are joined with "; " before an HTTP/1.1 context sees them.
    @Test func cookieCrumbsAreJoined() throws {
        let (head, _) = try Self.make(Self.get + [("cookie", "a=1"), ("accept", "x"), ("cookie", "bms_session=v")]).get()
        #expect(head.headers.values("Cookie") == ["a=1; bms_session=v"])
    }

    /// RFC 9113 §8.1.1, §8.2.1, §8.2.2, §8.3: malformed requests are stream errors, never exchanges.
    @Test(arguments: [
        [(":method", "GET"), (":scheme", "https"), (":authority", "a")],
        [(":method", "GET"), (":path", "/"), (":authority", "a")],
        [(":scheme", "https"), (":path", "/"), (":authority", "a")],
        [(":method", "GET"), (":scheme", "https"), (":path", "/"), (":path", "/x")],
        [(":method", "GET"), (":scheme", "https"), (":path", "/"), (":status", "200")],
        [(":method", "GET"), (":scheme", "https"), (":path", "/"), ("accept", "x"), (":authority", "a")],
        [(":method", "GET"), (":scheme", "https"), (":path", "/"), ("Accept", "x")],
        [(":method", "GET"), (":scheme", "https"), (":path", "/"), ("connection", "close")],
        [(":method", "GET"), (":scheme", "https"), (":path", "/"), ("transfer-encoding", "chunked")],
        [(":method", "GET"), (":scheme", "https"), (":path", "/"), ("upgrade", "websocket")],
        [(":method", "GET"), (":scheme", "https"), (":path", "/"), ("te", "gzip")],
        [(":method", "GET"), (":scheme", "ftp"), (":path", "/")],
        [(":method", "GET"), (":scheme", "https"), (":path", "")],
    ])
    func malformedIsAStreamError(_ pairs: [(String, String)]) {
        guard case .failure(.malformed) = Self.make(pairs) else {
            Issue.record("accepted \(pairs)")
            return
        }
    }

    /// The HTTP/1.1 rules answer as they do over HTTP/1.1.
    @Test func http11RulesAnswerWithTheirStatus() {
        func status(_ pairs: [(String, String)], limits: HTTPLimits = HTTPLimits()) -> Int? {
            if case .failure(.answer(let status)) = Self.make(pairs, limits: limits) { return status }
            return nil
        }
        let base = [(":scheme", "https"), (":path", "/"), (":authority", "a.example")]
        #expect(status([(":method", "TRACE")] + base) == 405)
        #expect(status([(":method", "BREW")] + base) == 501)
        #expect(status([(":method", "CONNECT"), (":authority", "a.example:443")]) == 501)
        #expect(status(Self.get + [("authorization", "Bearer a"), ("authorization", "Bearer b")]) == 400)
        #expect(status(Self.get + [("host", "other.example")]) == 400)
        #expect(status([(":method", "GET"), (":scheme", "https"), (":path", "/")]) == 400)
        var small = HTTPLimits()
        small.maxHeaderCount = 8
        #expect(status(Self.get + (0..<20).map { ("x-f\($0)", "v") }, limits: small) == 431)
        var capped = HTTPLimits()
        capped.maxBodyBytes = 10
        #expect(status([(":method", "POST")] + base + [("content-length", "11")], limits: capped) == 413)
    }

    @Test func hostEqualToAuthorityIsKept() throws {
        let (head, _) = try Self.make(Self.get + [("host", "APP.example.com")]).get()
        #expect(head.headers.values("Host") == ["APP.example.com"])
    }
}
