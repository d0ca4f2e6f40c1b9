import AppNativeHTTP
import Testing

@Suite("Serializer")
struct SerializerTests {
    static let requestHeads: [HTTPRequestHead] = [
        HTTPRequestHead(method: "GET", target: "/", headers: ["Host": "gateway.test"]),
        HTTPRequestHead(
            method: "POST",
            target: "/api/v1/items?x=1&y=%20",
            version: .http1_1,
            headers: ["Host": "gateway.test:8443", "Content-Length": "0", "X-Dup": "a", "x-dup": "b", "X-Empty": ""]
        ),
        HTTPRequestHead(method: "OPTIONS", target: "*", headers: ["Host": "h"]),
        HTTPRequestHead(method: "GET", target: "/", version: .http1_0, headers: ["X-Latin1": "caf\u{e9} \u{85}x\u{a0}"]),
        HTTPRequestHead(method: "DELETE", target: "http://gateway.test/a", headers: ["Host": "gateway.test", "A": "1\t2"]),
    ]

    @Test("serialising a request head and parsing it back gives the same head, under every split", arguments: requestHeads)
    func requestRoundTrip(_ head: HTTPRequestHead) throws {
        var wire: [UInt8] = []
        HTTPSerializer.appendRequestHead(head, to: &wire)
        let outcome = EverySplit.request(latin1String(wire))
        let parsed = try #require(outcome.messages.first, "\(EverySplit.describe(outcome))")
        #expect(parsed.head == head)
        #expect(parsed.isComplete)
    }

    static let responseHeads: [HTTPResponseHead] = [
        HTTPResponseHead(status: 200, reason: "OK", headers: ["Content-Length": "0"]),
        HTTPResponseHead(status: 404, reason: "", headers: ["Content-Length": "0", "Set-Cookie": "a=1", "Set-Cookie": "b=2"]),
        HTTPResponseHead(status: 503, reason: "Service Unavailable \u{e9}", version: .http1_0, headers: ["Content-Length": "0"]),
        HTTPResponseHead(status: 204, reason: "No Content"),
    ]

    @Test("serialising a response head and parsing it back gives the same head, under every split", arguments: responseHeads)
    func responseRoundTrip(_ head: HTTPResponseHead) throws {
        var wire: [UInt8] = []
        HTTPSerializer.appendResponseHead(head, to: &wire)
        let (outcome, _) = EverySplit.response(latin1String(wire))
        let parsed = try #require(outcome.messages.first, "\(EverySplit.describe(outcome))")
        #expect(parsed.head == head)
    }

    @Test("exact bytes of a request head")
    func requestBytes() {
        var wire: [UInt8] = []
        HTTPSerializer.appendRequestHead(
            HTTPRequestHead(method: "GET", target: "/x", headers: ["Host": "h", "Accept": "*/*"]),
            to: &wire
        )
        #expect(latin1String(wire) == "GET /x HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n")
    }

    @Test("chunk size lines are lower-case hex without leading zeros")
    func chunkHeaders() {
        for (size, text) in [(1, "1"), (10, "a"), (255, "ff"), (256, "100"), (4096, "1000"), (Int.max, "7fffffffffffffff")] {
            var wire: [UInt8] = []
            HTTPSerializer.appendChunkHeader(size: size, to: &wire)
            #expect(latin1String(wire) == text + "\r\n")
        }
    }

    @Test("a chunked body written with the serializer parses back with its trailers")
    func chunkedRoundTrip() throws {
        var wire: [UInt8] = []
        HTTPSerializer.appendRequestHead(
            HTTPRequestHead(method: "POST", target: "/", headers: ["Host": "h", "Transfer-Encoding": "chunked"]),
            to: &wire
        )
        for piece in ["hello", " ", String(repeating: "w", count: 300)] {
            HTTPSerializer.appendChunkHeader(size: piece.utf8.count, to: &wire)
            wire += Array(piece.utf8)
            HTTPSerializer.appendChunkEnd(to: &wire)
        }
        HTTPSerializer.appendLastChunk(trailers: ["X-Sum": "9"], to: &wire)
        let outcome = EverySplit.request(latin1String(wire))
        let message = try #require(outcome.messages.first)
        #expect(message.body == Array(("hello " + String(repeating: "w", count: 300)).utf8))
        #expect(message.trailers == ["X-Sum": "9"])

        var empty: [UInt8] = []
        HTTPSerializer.appendLastChunk(to: &empty)
        #expect(latin1String(empty) == "0\r\n\r\n")
    }

    @Test("values cannot inject lines: CR, LF, NUL and other controls become SP, outer whitespace goes")
    func valueSanitising() throws {
        var wire: [UInt8] = []
        let head = HTTPRequestHead(
            method: "GET",
            target: "/",
            headers: ["Host": "h", "X-User": " alice\r\nX-Admin: true\u{0}\u{7f} "]
        )
        HTTPSerializer.appendRequestHead(head, to: &wire)
        let outcome = EverySplit.request(latin1String(wire))
        let parsed = try #require(outcome.messages.first?.head)
        #expect(parsed.headers.count == 2)
        #expect(!parsed.headers.contains("X-Admin"))
        #expect(parsed.headers.first("X-User") == "alice  X-Admin: true")

        var response: [UInt8] = []
        HTTPSerializer.appendResponseHead(HTTPResponseHead(status: 200, reason: "OK\r\nX-Evil: 1"), to: &response)
        #expect(latin1String(response) == "HTTP/1.1 200 OK  X-Evil: 1\r\n\r\n")
    }

    @Test("a malformed method, target or status stops the process")
    func preconditions() async {
        await #expect(processExitsWith: .failure) {
            var wire: [UInt8] = []
            HTTPSerializer.appendRequestHead(HTTPRequestHead(method: "GET", target: "/a b"), to: &wire)
        }
        await #expect(processExitsWith: .failure) {
            var wire: [UInt8] = []
            HTTPSerializer.appendRequestHead(HTTPRequestHead(method: "G T", target: "/"), to: &wire)
        }
        await #expect(processExitsWith: .failure) {
            var wire: [UInt8] = []
            HTTPSerializer.appendResponseHead(HTTPResponseHead(status: 1000), to: &wire)
        }
        await #expect(processExitsWith: .failure) {
            var wire: [UInt8] = []
            HTTPSerializer.appendChunkHeader(size: 0, to: &wire)
        }
    }
}
