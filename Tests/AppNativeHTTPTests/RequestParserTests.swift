import AppNativeHTTP
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

@Suite("Request parser")
struct RequestParserTests {
    @Test("a GET head is parsed with its fields in order and no body")
    func simpleGet() throws {
        let outcome = EverySplit.request("GET /a?b=c HTTP/1.1\r\nHost: gateway.test\r\nAccept: */*\r\nX-A: 1\r\nx-a: 2\r\n\r\n")
        let message = try #require(outcome.messages.first)
        #expect(outcome.error == nil)
        #expect(message.head.method == "GET")
        #expect(message.head.target == "/a?b=c")
        #expect(message.head.version == .http1_1)
        #expect(message.head.headers.map(\.name) == ["Host", "Accept", "X-A", "x-a"])
        #expect(message.head.headers.values("X-A") == ["1", "2"])
        #expect(message.framing == .none)
        #expect(message.isComplete && message.body.isEmpty && message.trailers == nil)
        #expect(message.head.isKeepAlive)
    }

    @Test("body events are ranges of the caller's buffer, not copies")
    func bodyIsASlice() throws {
        var parser = HTTPRequestParser()
        let bytes = Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello".utf8)
        unsafe try bytes.withUnsafeBytes { buffer in
            let (headConsumed, headEvent) = unsafe try parser.parse(buffer)
            guard case .head(_, .contentLength(5)) = headEvent else {
                Issue.record("expected a head with Content-Length 5")
                return
            }
            let rest = unsafe UnsafeRawBufferPointer(rebasing: buffer[headConsumed...])
            let (bodyConsumed, bodyEvent) = unsafe try parser.parse(rest)
            guard case .body(let range) = bodyEvent else {
                Issue.record("expected body")
                return
            }
            #expect(bodyConsumed == 5 && range == 0..<5)
            let observed1 = unsafe rest.baseAddress! + range.lowerBound == buffer.baseAddress! + headConsumed
            #expect(observed1)
            let (endConsumed, endEvent) = unsafe try parser.parse(UnsafeRawBufferPointer(rebasing: rest[5...]))
            guard case .end(nil) = endEvent, endConsumed == 0 else {
                Issue.record("expected end")
                return
            }
        }
    }

    @Test("Content-Length: 0 is reported as contentLength(0) and ends at once")
    func zeroLength() throws {
        let outcome = EverySplit.request("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
        let message = try #require(outcome.messages.first)
        #expect(message.framing == .contentLength(0) && message.isComplete && message.body.isEmpty)
    }

    @Test("chunked bodies with extensions and trailers, then a pipelined request")
    func chunkedThenPipelined() throws {
        let raw = "POST /u HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n"
            + "4;a=b\r\nWiki\r\n5 ; x = \"q\\\"d\"\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-Sum: 1\r\nx-more: \u{e9}\r\n\r\n"
            + "GET /next HTTP/1.1\r\nHost: h\r\n\r\n"
        let outcome = EverySplit.request(raw)
        #expect(outcome.error == nil)
        try #require(outcome.messages.count == 2)
        #expect(outcome.messages[0].framing == .chunked)
        #expect(outcome.messages[0].body == Array("Wikipedia in\r\n\r\nchunks.".utf8))
        #expect(outcome.messages[0].trailers == ["X-Sum": "1", "x-more": "\u{e9}"])
        #expect(outcome.messages[1].head.target == "/next" && outcome.messages[1].isComplete)
    }

    @Test("empty lines before the request line are skipped (RFC 9112 §2.2)")
    func leadingEmptyLines() throws {
        let outcome = EverySplit.request("\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(outcome.error == nil && outcome.messages.count == 1)
        let tooMany = String(repeating: "\r\n", count: 9) + "GET / HTTP/1.1\r\nHost: h\r\n\r\n"
        #expect(EverySplit.request(tooMany, limits: HTTPLimits(maxRequestLineBytes: 16)).error?.code == .invalidRequestLine)
        #expect(EverySplit.request("\r\rGET / HTTP/1.1\r\n").error?.code == .bareCR)
        #expect(EverySplit.request("\nGET / HTTP/1.1\r\n").error?.code == .bareLF)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let label: String
        let raw: String
        let code: HTTPParseError.Code
        let status: Int
        var testDescription: String { label }
    }

    static let refusals: [Refusal] = [
        Refusal(
            label: "CR without LF ending the request line",
            raw: "GET / HTTP/1.1\rHost: h\r\n\r\n",
            code: .bareCR,
            status: 400
        ),
        Refusal(
            label: "CR without LF ending the section",
            raw: "GET / HTTP/1.1\r\nHost: h\r\n\rX",
            code: .bareCR,
            status: 400
        ),
        Refusal(
            label: "bare LF ending the request line",
            raw: "GET / HTTP/1.1\nHost: h\r\n\r\n",
            code: .bareLF,
            status: 400
        ),
        Refusal(label: "HTTP/0.9", raw: "GET / HTTP/0.9\r\n\r\n", code: .unsupportedVersion, status: 505),
        Refusal(label: "HTTP/3.0", raw: "GET / HTTP/3.0\r\nHost: h\r\n\r\n", code: .unsupportedVersion, status: 505),
        Refusal(
            label: "version without minor",
            raw: "GET / HTTP/1\r\nHost: h\r\n\r\n",
            code: .invalidVersion,
            status: 400
        ),
        Refusal(
            label: "TRACE is refused: known, not allowed on any resource (405)",
            raw: "TRACE / HTTP/1.1\r\nHost: h\r\n\r\n",
            code: .refusedMethod,
            status: 405
        ),
        Refusal(
            label: "CONNECT is not allowed",
            raw: "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n",
            code: .unsupportedMethod,
            status: 501
        ),
        Refusal(
            label: "fragment in target",
            raw: "GET /a#b HTTP/1.1\r\nHost: h\r\n\r\n",
            code: .invalidTarget,
            status: 400
        ),
        Refusal(
            label: "userinfo in absolute-form",
            raw: "GET http://u@h/ HTTP/1.1\r\nHost: h\r\n\r\n",
            code: .invalidHost,
            status: 400
        ),
        Refusal(
            label: "empty authority",
            raw: "GET http:///a HTTP/1.1\r\nHost: h\r\n\r\n",
            code: .invalidHost,
            status: 400
        ),
        Refusal(
            label: "absolute-form authority that is not Host",
            raw: "GET http://other.test/a HTTP/1.1\r\nHost: h\r\n\r\n",
            code: .authorityMismatch,
            status: 400
        ),
        Refusal(
            label: "absolute-form authority with a port Host lacks",
            raw: "GET http://h:8080/a HTTP/1.1\r\nHost: h\r\n\r\n",
            code: .authorityMismatch,
            status: 400
        ),
        Refusal(
            label: "HTTP/2 connection preface (RFC 9113 §3.4)",
            raw: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
            code: .unsupportedVersion,
            status: 505
        ),
        Refusal(
            label: "ftp absolute-form",
            raw: "GET ftp://h/ HTTP/1.1\r\nHost: h\r\n\r\n",
            code: .invalidTarget,
            status: 400
        ),
        Refusal(
            label: "Host with userinfo",
            raw: "GET / HTTP/1.1\r\nHost: u@h\r\n\r\n",
            code: .invalidHost,
            status: 400
        ),
        Refusal(label: "Host with comma", raw: "GET / HTTP/1.1\r\nHost: a,b\r\n\r\n", code: .invalidHost, status: 400),
        Refusal(
            label: "Host with bad percent",
            raw: "GET / HTTP/1.1\r\nHost: a%4\r\n\r\n",
            code: .invalidHost,
            status: 400
        ),
        Refusal(
            label: "Host with non-digit port",
            raw: "GET / HTTP/1.1\r\nHost: a:b\r\n\r\n",
            code: .invalidHost,
            status: 400
        ),
        Refusal(
            label: "duplicate Host in HTTP/1.0",
            raw: "GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n",
            code: .duplicateHost,
            status: 400
        ),
        Refusal(
            label: "DEL in a value",
            raw: "GET / HTTP/1.1\r\nHost: h\r\nX: a\u{7f}\r\n\r\n",
            code: .invalidHeader,
            status: 400
        ),
        Refusal(
            label: "TE with parameters",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked;q=1\r\n\r\n",
            code: .unsupportedTransferCoding,
            status: 501
        ),
        Refusal(
            label: "TE chunked then gzip on two lines",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n",
            code: .invalidTransferEncoding,
            status: 400
        ),
        Refusal(
            label: "TE gzip alone",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n",
            code: .unsupportedTransferCoding,
            status: 501
        ),
        Refusal(
            label: "Content-Length just past 64 bits",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 18446744073709551616\r\n\r\n",
            code: .invalidContentLength,
            status: 400
        ),
        Refusal(
            label: "obs-fold in trailers",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: b\r\n c\r\n\r\n",
            code: .obsFold,
            status: 400
        ),
        Refusal(
            label: "bare LF in trailers",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: b\n\r\n",
            code: .bareLF,
            status: 400
        ),
        Refusal(
            label: "whitespace before colon in trailers",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA : b\r\n\r\n",
            code: .whitespaceBeforeColon,
            status: 400
        ),
        Refusal(
            label: "chunk extension with whitespace then CR",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;a \r\nhello\r\n0\r\n\r\n",
            code: .invalidChunk,
            status: 400
        ),
        Refusal(
            label: "chunk extension with empty value",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\r\nhello\r\n0\r\n\r\n",
            code: .invalidChunk,
            status: 400
        ),
        Refusal(
            label: "chunk extension without name",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;=b\r\nhello\r\n0\r\n\r\n",
            code: .invalidChunk,
            status: 400
        ),
        Refusal(
            label: "text after a quoted chunk extension",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\"b\"c\r\nhello\r\n0\r\n\r\n",
            code: .invalidChunk,
            status: 400
        ),
        Refusal(
            label: "CR inside chunk data terminator",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\rX",
            code: .bareCR,
            status: 400
        ),
        Refusal(
            label: "chunk size of 17 hex digits",
            raw: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n",
            code: .invalidChunk,
            status: 400
        ),
    ]

    @Test("each rule refuses with its code and status under every split", arguments: refusals)
    func refusal(_ refusal: Refusal) {
        let outcome = EverySplit.request(refusal.raw)
        #expect(outcome.error?.code == refusal.code, "\(refusal.label): \(EverySplit.describe(outcome))")
        #expect(outcome.error?.status == refusal.status, "\(refusal.label)")
    }

    @Test("accepted edge cases: 16 hex digits, UInt64.max Content-Length, IPv6 Host, https absolute-form")
    func acceptedEdges() throws {
        let size = EverySplit.request(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000001\r\nx\r\n0\r\n\r\n"
        )
        #expect(size.error == nil && size.messages.first?.body == [UInt8(ascii: "x")])
        let length = EverySplit.request("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 18446744073709551615\r\n\r\n")
        #expect(length.messages.first?.framing == .contentLength(.max))
        for host in ["[::1]:8443", "[fe80::1%25eth0]", "ex%41mple.test", "a-b.c_d~e", "h:"] {
            let outcome = EverySplit.request("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            #expect(outcome.error == nil, "Host \(host)")
        }
        let absolute = EverySplit.request("GET HTTPS://h:1/p HTTP/1.1\r\nHost: H:1\r\n\r\n")
        #expect(absolute.messages.first?.head.target == "HTTPS://h:1/p")
        let withoutHost = EverySplit.request("GET http://h/p HTTP/1.0\r\n\r\n")
        #expect(withoutHost.error == nil, "an HTTP/1.0 absolute-form request without Host")
    }

    @Test("limits hold exactly at their value and refuse one byte or field past it")
    func limitBoundaries() {
        let limits = HTTPLimits(maxRequestLineBytes: 20, maxHeaderBytes: 40, maxHeaderCount: 3, maxBodyBytes: 10)
        // Request line: "GET /" + padding + " HTTP/1.1" is 14 bytes plus the padding.
        let fits = "GET /" + String(repeating: "a", count: 6) + " HTTP/1.1\r\nHost: h\r\n\r\n"
        let tooLong = "GET /" + String(repeating: "a", count: 7) + " HTTP/1.1\r\nHost: h\r\n\r\n"
        #expect(EverySplit.request(fits, limits: limits).error == nil)
        #expect(EverySplit.request(tooLong, limits: limits).error?.status == 414)
        // Section: "Host: h\r\n" (9) + "X: " + value + "\r\n" (5 + n) + "\r\n" (2) = 16 + n.
        let sectionFits = "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 24) + "\r\n\r\n"
        let sectionTooLarge = "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 25) + "\r\n\r\n"
        #expect(EverySplit.request(sectionFits, limits: limits).error == nil)
        #expect(EverySplit.request(sectionTooLarge, limits: limits).error?.code == .headerSectionTooLarge)
        let threeFields = "GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n"
        let fourFields = "GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"
        #expect(EverySplit.request(threeFields, limits: limits).error == nil)
        #expect(EverySplit.request(fourFields, limits: limits).error?.code == .tooManyHeaders)
        #expect(EverySplit.request(fourFields, limits: limits).error?.status == 431)
        // Body: declared and accumulated.
        let bodyFits = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789"
        let bodyTooLarge = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n"
        #expect(EverySplit.request(bodyFits, limits: limits).error == nil)
        #expect(EverySplit.request(bodyTooLarge, limits: limits).error?.status == 413)
        let chunksFit = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n"
        let chunksTooLarge = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n6\r\n"
        #expect(EverySplit.request(chunksFit, limits: limits).error == nil)
        let refused = EverySplit.request(chunksTooLarge, limits: limits)
        #expect(refused.error?.status == 413)
        #expect(refused.messages.first?.body == Array("01234".utf8), "the first chunk was delivered before the limit was passed")
        // Trailers have the section limit too.
        let trailers = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: " + String(repeating: "t", count: 40) + "\r\n\r\n"
        #expect(EverySplit.request(trailers, limits: limits).error?.status == 431)
    }

    @Test("a chunk size line longer than 4096 bytes is refused")
    func longChunkLine() {
        let raw = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "a", count: 5000) + "\r\nx\r\n0\r\n\r\n"
        #expect(EverySplit.request(raw).error?.code == .invalidChunk)
    }

    @Test("errors are sticky: the next call throws the same error")
    func stickyErrors() throws {
        var parser = HTTPRequestParser()
        let bad = Array("GET / HTTP/1.1\r\nHost : h\r\n\r\n".utf8)
        let good = Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        #expect(throws: HTTPParseError(.whitespaceBeforeColon, reason: "")) {
            _ = unsafe try bad.withUnsafeBytes { unsafe try parser.parse($0) }
        }
        #expect(throws: HTTPParseError(.whitespaceBeforeColon, reason: "")) {
            _ = unsafe try good.withUnsafeBytes { unsafe try parser.parse($0) }
        }
    }

    @Test("after a closing request the parser discards the rest; keep-alive HTTP/1.0 continues")
    func closeDiscards() throws {
        var parser = HTTPRequestParser()
        let closing = Array("GET / HTTP/1.0\r\n\r\nGET /admin HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        let outcome = Feeder.feed(closing, to: &parser, split: Split(name: "whole", sizes: [closing.count]))
        #expect(outcome.messages.count == 1 && parser.isDiscardingInput && outcome.consumed == closing.count)

        let keepAlive = EverySplit.request(
            "GET /1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\nGET /3 HTTP/1.0\r\n\r\nGET /4 HTTP/1.0\r\n\r\n"
        )
        #expect(keepAlive.messages.map(\.head.target) == ["/1", "/2", "/3"])
    }

    @Test("isKeepAlive follows RFC 9112 §9.3")
    func keepAliveRule() {
        let cases: [(HTTPVersion, HTTPHeaders, Bool)] = [
            (.http1_1, [:], true),
            (.http1_1, ["Connection": "close"], false),
            (.http1_1, ["Connection": "foo, CLOSE"], false),
            (HTTPVersion(major: 1, minor: 2), [:], true),
            (.http1_0, [:], false),
            (.http1_0, ["connection": "Keep-Alive"], true),
            (.http1_0, ["Connection": "keep-alive", "Connection": "close"], false),
        ]
        for (version, headers, expected) in cases {
            let head = HTTPRequestHead(method: "GET", target: "/", version: version, headers: headers)
            #expect(head.isKeepAlive == expected, "\(version) \(headers)")
        }
    }

    @Test("a thousand pipelined requests in one buffer and in many reuse the parser cleanly")
    func manyPipelined() throws {
        var raw = ""
        for index in 0..<1000 {
            raw += index % 2 == 0
                ? "GET /\(index) HTTP/1.1\r\nHost: h\r\n\r\n"
                : "POST /\(index) HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        }
        let bytes = latin1Bytes(raw)
        for split in [Split(name: "whole", sizes: [bytes.count])] + Split.all(for: bytes.count).suffix(4) {
            var parser = HTTPRequestParser()
            let outcome = Feeder.feed(bytes, to: &parser, split: split)
            #expect(outcome.violations.isEmpty && outcome.error == nil, "\(split)")
            #expect(outcome.messages.count == 1000, "\(split)")
            #expect(outcome.messages.allSatisfy { $0.isComplete }, "\(split)")
            #expect(outcome.messages.last?.head.target == "/999", "\(split)")
        }
    }

    @Test("the allow-list is the documented one")
    func allowList() {
        #expect(HTTPRequestParser.allowedMethods == ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
        for method in HTTPRequestParser.allowedMethods {
            let outcome = EverySplit.request("\(method) / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(outcome.messages.first?.head.method == method)
        }
    }

    @Test("error reasons never contain request bytes")
    func reasonsAreSafe() {
        let secret = "Bearer-SECRET-TOKEN"
        let inputs = [
            "GET /\(secret)# HTTP/1.1\r\nHost: h\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: h\r\nAuthorization: \(secret)\r\nAuthorization: \(secret)\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: h\r\n\(secret) : x\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \(secret)\r\n\r\n",
        ]
        for input in inputs {
            let error = EverySplit.request(input).error
            #expect(error != nil)
            #expect(!(error?.description.contains("SECRET") ?? true), "\(error.map { "\($0.code)" } ?? "")")
        }
    }
}
