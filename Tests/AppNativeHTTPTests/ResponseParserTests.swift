import AppNativeHTTP
import Testing

@Suite("Response parser")
struct ResponseParserTests {
    @Test("Content-Length body")
    func contentLength() throws {
        let (outcome, parser) = EverySplit.response("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: y\r\n\r\nhello")
        let message = try #require(outcome.messages.first)
        #expect(outcome.error == nil && outcome.messages.count == 1)
        #expect(message.head.status == 200 && message.head.reason == "OK" && message.head.version == .http1_1)
        #expect(message.head.headers == ["Content-Length": "5", "X": "y"])
        #expect(message.framing == .contentLength(5) && message.body == Array("hello".utf8) && message.isComplete)
        #expect(!parser.isDiscardingInput && !parser.hasSwitchedProtocols)
    }

    @Test("chunked body with trailers, then a second response on the same connection")
    func chunkedWithTrailers() throws {
        let raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n"
            + "3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-Sum: 42\r\n\r\n"
            + "HTTP/1.1 204 No Content\r\n\r\n"
        let (outcome, _) = EverySplit.response(raw)
        #expect(outcome.error == nil)
        try #require(outcome.messages.count == 2)
        #expect(outcome.messages[0].framing == .chunked)
        #expect(outcome.messages[0].body == Array("abcde".utf8))
        #expect(outcome.messages[0].trailers == ["X-Sum": "42"])
        #expect(outcome.messages[1].head.status == 204 && outcome.messages[1].framing == .none)
        #expect(outcome.messages[1].isComplete)
    }

    @Test("no Content-Length or Transfer-Encoding: the body runs until close and finish() ends it")
    func untilClose() throws {
        let (outcome, parser) = EverySplit.response("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of this\r\nis body")
        let message = try #require(outcome.messages.first)
        #expect(outcome.error == nil)
        #expect(message.framing == .untilClose)
        #expect(message.body == Array("all of this\r\nis body".utf8))
        #expect(message.isComplete, "finish() delivered the end")
        #expect(parser.isDiscardingInput)
    }

    @Test("HEAD responses have no body whatever Content-Length says")
    func headResponse() throws {
        let (outcome, _) = EverySplit.response(
            "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
            to: "HEAD"
        )
        #expect(outcome.error == nil)
        try #require(outcome.messages.count == 2)
        #expect(outcome.messages[0].framing == .none && outcome.messages[0].isComplete)
        #expect(outcome.messages[1].framing == .contentLength(2), "the expectation is used up by one response")
        #expect(outcome.messages[1].body == Array("hi".utf8))
    }

    @Test("204 and 304 have no body", arguments: [204, 304])
    func noContent(_ status: Int) throws {
        let (outcome, _) = EverySplit.response(
            "HTTP/1.1 \(status) X\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        )
        #expect(outcome.error == nil)
        #expect(outcome.messages.map(\.framing) == [.none, .contentLength(0)])
        #expect(outcome.messages.allSatisfy { $0.isComplete })
    }

    @Test("100 Continue is delivered as a head with its own end, then the final response")
    func continueThenOK() throws {
        let (outcome, _) = EverySplit.response(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        )
        #expect(outcome.error == nil)
        #expect(outcome.messages.map(\.head.status) == [100, 103, 200])
        #expect(outcome.messages.map(\.framing) == [.none, .none, .contentLength(2)])
        #expect(outcome.messages.last?.body == Array("ok".utf8))
        #expect(outcome.messages.allSatisfy { $0.isComplete })
    }

    @Test("informational responses keep the HEAD expectation for the final response")
    func continueThenHead() throws {
        let (outcome, _) = EverySplit.response(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n",
            to: "HEAD"
        )
        #expect(outcome.error == nil)
        #expect(outcome.messages.map(\.framing) == [.none, .none])
        #expect(outcome.messages.allSatisfy { $0.isComplete })
    }

    @Test("101 Switching Protocols ends HTTP on the connection; what follows is not parsed")
    func switchingProtocols() throws {
        let raw = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{05}hello".utf8)
        var parser = HTTPResponseParser()
        let outcome = Feeder.feed(raw, to: &parser, split: Split(name: "whole", sizes: [raw.count]))
        #expect(outcome.messages.count == 1 && outcome.messages[0].isComplete)
        #expect(parser.hasSwitchedProtocols)
        #expect(outcome.consumed == raw.count - Array("\u{81}\u{05}hello".utf8).count, "tunnel bytes are left to the caller")
        var byByte = HTTPResponseParser()
        let split = Feeder.feed(Array(raw.prefix(outcome.consumed)), to: &byByte, split: Split.all(for: outcome.consumed)[1])
        #expect(split.messages.count == 1 && byByte.hasSwitchedProtocols)
    }

    @Test("a 2xx response to CONNECT switches too")
    func connect() {
        let (outcome, parser) = EverySplit.response("HTTP/1.1 200 Connection Established\r\n\r\n", to: "CONNECT")
        #expect(outcome.messages.first?.framing == HTTPBodyFraming.none)
        #expect(parser.hasSwitchedProtocols)
    }

    @Test("status line variants: empty reason, missing SP after the code, obs-text reason")
    func statusLines() throws {
        for (raw, reason) in [
            ("HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n", ""),
            ("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", ""),
            ("HTTP/1.0 404 Nicht gefunden \u{e9}\r\nContent-Length: 0\r\n\r\n", "Nicht gefunden \u{e9}"),
        ] {
            let (outcome, _) = EverySplit.response(raw)
            let head = try #require(outcome.messages.first?.head, "\(raw)")
            #expect(head.reason == reason)
        }
    }

    @Test("HTTP/1.0 response without keep-alive: body until close is still framed by Content-Length, then discard")
    func http10Close() {
        let (outcome, parser) = EverySplit.response("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.0 200 OK\r\n\r\n")
        #expect(outcome.messages.count == 1 && outcome.messages[0].body == Array("ok".utf8))
        #expect(parser.isDiscardingInput)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let label: String
        let raw: String
        let code: HTTPParseError.Code
        var testDescription: String { label }
    }

    static let refusals: [Refusal] = [
        Refusal(
            label: "Content-Length with Transfer-Encoding",
            raw: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            code: .ambiguousFraming
        ),
        Refusal(
            label: "two Content-Lengths",
            raw: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
            code: .invalidContentLength
        ),
        Refusal(
            label: "malformed Content-Length",
            raw: "HTTP/1.1 200 OK\r\nContent-Length: 3x\r\n\r\nabc",
            code: .invalidContentLength
        ),
        Refusal(
            label: "gzip transfer coding",
            raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            code: .unsupportedTransferCoding
        ),
        Refusal(
            label: "chunked not last",
            raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
            code: .invalidTransferEncoding
        ),
        Refusal(
            label: "Transfer-Encoding in HTTP/1.0",
            raw: "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            code: .invalidTransferEncoding
        ),
        Refusal(label: "HTTP/2 status line", raw: "HTTP/2.0 200 OK\r\n\r\n", code: .unsupportedVersion),
        Refusal(label: "lower-case version", raw: "http/1.1 200 OK\r\n\r\n", code: .invalidStatusLine),
        Refusal(label: "two-digit status", raw: "HTTP/1.1 20 OK\r\n\r\n", code: .invalidStatusLine),
        Refusal(label: "status below 100", raw: "HTTP/1.1 099 Odd\r\n\r\n", code: .invalidStatusLine),
        Refusal(label: "status 600", raw: "HTTP/1.1 600 Odd\r\nContent-Length: 0\r\n\r\n", code: .invalidStatusLine),
        Refusal(label: "status 999", raw: "HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n", code: .invalidStatusLine),
        Refusal(label: "bare LF status line", raw: "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", code: .bareLF),
        Refusal(label: "obs-fold", raw: "HTTP/1.1 200 OK\r\nX: a\r\n b\r\nContent-Length: 0\r\n\r\n", code: .obsFold),
        Refusal(
            label: "NUL in a value",
            raw: "HTTP/1.1 200 OK\r\nX: a\u{0}b\r\nContent-Length: 0\r\n\r\n",
            code: .invalidHeader
        ),
        Refusal(
            label: "bad chunk",
            raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            code: .invalidChunk
        ),
        Refusal(
            label: "truncated Content-Length body",
            raw: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
            code: .truncated
        ),
        Refusal(
            label: "truncated chunked body",
            raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
            code: .truncated
        ),
        Refusal(label: "truncated head", raw: "HTTP/1.1 200 OK\r\nContent-Le", code: .truncated),
    ]

    @Test("broken upstream responses fail with 502 and a specific code", arguments: refusals)
    func refusal(_ refusal: Refusal) {
        let (outcome, _) = EverySplit.response(refusal.raw)
        #expect(outcome.error?.code == refusal.code, "\(refusal.label): \(EverySplit.describe(outcome))")
        #expect(outcome.error?.status == 502, "\(refusal.label)")
    }

    @Test("finish() between messages is a clean close")
    func cleanClose() throws {
        var parser = HTTPResponseParser()
        #expect(try parser.finish() == nil)
        let (outcome, _) = EverySplit.response("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        #expect(outcome.error == nil && outcome.messages.count == 1)
    }

    @Test("response limits: status line and header section")
    func limits() {
        let limits = HTTPLimits(maxRequestLineBytes: 20, maxHeaderBytes: 30)
        let (longLine, _) = EverySplit.response("HTTP/1.1 200 " + String(repeating: "r", count: 20) + "\r\n\r\n", limits: limits)
        #expect(longLine.error?.code == .requestLineTooLong && longLine.error?.status == 502)
        let (bigSection, _) = EverySplit.response("HTTP/1.1 200 OK\r\nX: " + String(repeating: "v", count: 40) + "\r\n\r\n", limits: limits)
        #expect(bigSection.error?.code == .headerSectionTooLarge && bigSection.error?.status == 502)
    }
}
