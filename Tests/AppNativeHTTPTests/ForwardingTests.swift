import AppNativeHTTP
import AppNativeTesting
import Testing

/// `forwardingHead` against the vectors' `forwarding` expectations, plus a round trip: what is
/// sent upstream must itself parse as one clean request with the same body.
@Suite("Forwarding")
struct ForwardingTests {
    static func forwardable() throws -> [RequestVector] {
        try RequestVector.all().filter { ["accept", "must-not-forward-as-is"].contains($0.pinnedVerdict) }
    }

    @Test("forwarded heads meet the vector constraints and parse back cleanly", arguments: try forwardable())
    func forwarding(_ vector: RequestVector) throws {
        var parser = HTTPRequestParser(limits: RequestVectorTests.limits)
        let bytes = vector.bytes
        let outcome = Feeder.feed(bytes, to: &parser, split: Split(name: "whole", sizes: [bytes.count]))
        let message = try #require(outcome.messages.first, "\(vector.id): nothing parsed")
        let forwarded = message.head.forwardingHead(framing: message.framing, fallbackHost: "gateway.test")
        let headers = forwarded.headers

        for name in vector.forwarding?.mustNotContainHeaders ?? [] {
            #expect(!headers.contains(name), "\(vector.id): forwarded \(name)")
        }
        for pair in vector.forwarding?.mustContainHeaders ?? [] {
            #expect(headers.values(pair[0]).contains(pair[1]), "\(vector.id): missing \(pair[0]): \(pair[1])")
        }
        if let host = vector.forwarding?.requiredHost {
            #expect(headers.first("Host") == host, "\(vector.id): Host \(headers.first("Host") ?? "none")")
        }

        // Invariants for every forwarded request.
        #expect(forwarded.version == .http1_1, "\(vector.id)")
        #expect(headers.count(of: "Host") == 1 && HTTPHeaders.nameEquals(headers.first?.name ?? "", "Host"), "\(vector.id): Host first and once")
        // Transfer-Encoding is hop-by-hop but regenerated for the next hop (checked below).
        #expect(
            !headers.contains { HopByHopHeaders.isHopByHop($0.name) && !HTTPHeaders.nameEquals($0.name, "Transfer-Encoding") },
            "\(vector.id): hop-by-hop field forwarded"
        )
        #expect(!headers.contains { $0.name.contains("_") }, "\(vector.id): underscore name forwarded")
        #expect(forwarded.target.hasPrefix("/") || forwarded.target == "*", "\(vector.id): target \(forwarded.target)")
        switch message.framing {
        case .none:
            #expect(!headers.contains("Content-Length") && !headers.contains("Transfer-Encoding"), "\(vector.id)")
        case .contentLength(let length):
            #expect(headers.values("Content-Length") == [String(length)], "\(vector.id)")
        case .chunked, .untilClose:
            #expect(headers.values("Transfer-Encoding") == ["chunked"], "\(vector.id)")
            #expect(!headers.contains("Content-Length"), "\(vector.id)")
        }

        // Upstream bytes: the head, then the body in the forwarded framing.
        var wire: [UInt8] = []
        HTTPSerializer.appendRequestHead(forwarded, to: &wire)
        if case .chunked = message.framing {
            if !message.body.isEmpty {
                HTTPSerializer.appendChunkHeader(size: message.body.count, to: &wire)
                wire += message.body
                HTTPSerializer.appendChunkEnd(to: &wire)
            }
            HTTPSerializer.appendLastChunk(trailers: message.trailers, to: &wire)
        } else {
            wire += message.body
        }
        var upstream = HTTPRequestParser()
        let reparsed = Feeder.feed(wire, to: &upstream, split: Split(name: "whole", sizes: [wire.count]))
        #expect(reparsed.error == nil && reparsed.violations.isEmpty, "\(vector.id): upstream refuses \(EverySplit.describe(reparsed))")
        #expect(reparsed.messages.count == 1 && reparsed.messages.first?.isComplete == true, "\(vector.id)")
        #expect(reparsed.messages.first?.head == forwarded, "\(vector.id)")
        #expect(reparsed.messages.first?.body == message.body, "\(vector.id)")
    }

    /// The forwarding notes that are prose in the vector file, made concrete.
    @Test("forwarding notes: normalised framing, origin-form, regenerated Host")
    func notes() throws {
        let vectors = Dictionary(uniqueKeysWithValues: try RequestVector.all().map { ($0.id, $0) })
        func forwarded(_ id: String, keepingWebSocketUpgrade: Bool = false) throws -> HTTPRequestHead {
            let vector = try #require(vectors[id], "missing case \(id)")
            var parser = HTTPRequestParser(limits: RequestVectorTests.limits)
            let outcome = Feeder.feed(vector.bytes, to: &parser, split: Split(name: "whole", sizes: [vector.bytes.count]))
            let message = try #require(outcome.messages.first, "\(id)")
            return message.head.forwardingHead(
                framing: message.framing,
                fallbackHost: "fallback.test",
                keepingWebSocketUpgrade: keepingWebSocketUpgrade
            )
        }
        #expect(try forwarded("te-comma-chunked").headers.values("Transfer-Encoding") == ["chunked"])
        #expect(try forwarded("cl-leading-zeros-decimal").headers.values("Content-Length") == ["10"])
        #expect(try forwarded("te-underscore-name").headers.values("Content-Length") == ["5"])
        let absolute = try forwarded("target-absolute-form")
        #expect(absolute.target == "/a?b=1" && absolute.headers.first("Host") == "gateway.test")
        let http10 = try forwarded("http10-keep-alive")
        #expect(http10.version == .http1_1 && http10.headers.map(\.name) == ["Host"])
        #expect(try forwarded("ok-http10-no-host").headers.first("Host") == "fallback.test")
        let h2c = try forwarded("upgrade-h2c", keepingWebSocketUpgrade: true)
        #expect(!h2c.headers.contains("Upgrade") && !h2c.headers.contains("HTTP2-Settings") && !h2c.headers.contains("Connection"))
    }

    @Test("absolute-form targets with an empty path or only a query become origin-form")
    func absoluteForms() {
        let cases: [(String, String, String, String)] = [
            ("GET", "http://h:81", "/", "h:81"),
            ("OPTIONS", "http://h", "*", "h"),
            ("GET", "https://h?q=1", "/?q=1", "h"),
            ("GET", "/plain", "/plain", "received"),
        ]
        for (method, target, origin, host) in cases {
            let head = HTTPRequestHead(method: method, target: target, headers: ["Host": "received"])
            let forwarded = head.forwardingHead(framing: .none, fallbackHost: "fallback")
            #expect(forwarded.target == origin && forwarded.headers.first("Host") == host, "\(target)")
        }
    }

    @Test("framing fields: canonical ones stay in place, others are replaced, duplicates go")
    func framingNormalisation() {
        let cases: [(HTTPHeaders, HTTPBodyFraming, [String])] = [
            (["Host": "h", "Content-Length": "5", "A": "1"], .contentLength(5), ["Host: h", "Content-Length: 5", "A: 1"]),
            (["Host": "h", "Content-Length": "010", "A": "1"], .contentLength(10), ["Host: h", "A: 1", "Content-Length: 10"]),
            (["Host": "h", "Transfer-Encoding": "Chunked"], .chunked, ["Host: h", "Transfer-Encoding: Chunked"]),
            (["Host": "h", "Transfer-Encoding": ",chunked"], .chunked, ["Host: h", "Transfer-Encoding: chunked"]),
            (["Host": "h", "Content-Length": "5"], .chunked, ["Host: h", "Transfer-Encoding: chunked"]),
            (["Host": "h", "Content-Length": "0"], .none, ["Host: h"]),
            (["A": "1", "Host": "h", "host": "evil"], .none, ["Host: h", "A: 1"]),
            (["Host": "h", "Connection": "Content-Length, Host", "Content-Length": "3"], .contentLength(3), ["Host: h", "Content-Length: 3"]),
        ]
        for (headers, framing, expected) in cases {
            let head = HTTPRequestHead(method: "POST", target: "/", headers: headers)
            let forwarded = head.forwardingHead(framing: framing, fallbackHost: "fallback")
            #expect(forwarded.headers.map { "\($0.name): \($0.value)" } == expected, "\(headers) \(framing)")
        }
    }

    @Test("a WebSocket upgrade survives forwarding only when asked for")
    func webSocket() {
        let head = HTTPRequestHead(
            method: "GET",
            target: "/ws",
            headers: ["Host": "h", "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": "k", "Sec-WebSocket-Version": "13"]
        )
        let kept = head.forwardingHead(framing: .none, fallbackHost: "x", keepingWebSocketUpgrade: true)
        #expect(kept.headers.map(\.name) == ["Host", "Upgrade", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Connection"])
        let stripped = head.forwardingHead(framing: .none, fallbackHost: "x")
        #expect(stripped.headers.map(\.name) == ["Host", "Sec-WebSocket-Key", "Sec-WebSocket-Version"])
    }
}
