import AppNativeHTTP
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

@Suite("HTTPHeaders and hop-by-hop fields")
struct HeadersTests {
    @Test("lookups ignore ASCII case and keep order and duplicates")
    func lookups() {
        let headers: HTTPHeaders = ["Host": "h", "Accept": "a", "accept": "b", "X-Latin1": "caf\u{e9}"]
        #expect(headers.first("HOST") == "h")
        #expect(headers.values("ACCEPT") == ["a", "b"])
        #expect(headers.count(of: "accept") == 2)
        #expect(headers.firstIndex(of: "ACCEPT") == 1)
        #expect(headers.first("x-latin1") == "caf\u{e9}")
        #expect(headers.first("Missing") == nil && headers.values("Missing").isEmpty && !headers.contains("Missing"))
        #expect(headers.map(\.name) == ["Host", "Accept", "accept", "X-Latin1"])
        #expect(HTTPHeaders.nameEquals("Content-Length", "content-LENGTH"))
        #expect(!HTTPHeaders.nameEquals("Content-Length", "Content-Lengt"))
        #expect(!HTTPHeaders.nameEquals("a", "A\u{0}"))
        #expect(!HTTPHeaders.nameEquals("\u{e9}", "\u{c9}"), "only ASCII letters fold")
        // "@" (0x40) and "`" (0x60) differ by the case bit but are not letters.
        #expect(!HTTPHeaders.nameEquals("@", "`"))
    }

    @Test("every value of a name as bytes, in order, with its ASCII flag, until the body stops")
    func everyValueAsBytes() {
        let headers: HTTPHeaders = ["Cookie": "a=1", "Other": "x", "cookie": "b=\u{E9}", "COOKIE": "c=3"]
        var seen: [(String, Bool)] = []
        unsafe headers.forEachValueBytes("Cookie") { value, isASCII in
            unsafe seen.append((String(decoding: value, as: Unicode.ASCII.self), isASCII))
            return true
        }
        #expect(seen.map(\.0) == ["a=1", "b=\u{FFFD}", "c=3"])
        #expect(seen.map(\.1) == [true, false, true])
        var first: [String] = []
        unsafe headers.forEachValueBytes("cookie") { value, _ in
            unsafe first.append(String(decoding: value, as: UTF8.self))
            return false
        }
        #expect(first == ["a=1"])
        var none = 0
        unsafe headers.forEachValueBytes("Missing") { _, _ in none += 1; return true }
        #expect(none == 0)
    }

    @Test("values are normalised on insertion: controls become SP, outer whitespace goes")
    func valueNormalisation() {
        var headers = HTTPHeaders()
        headers.add(name: "X-User", value: " \talice\r\nX-Admin: true\u{0}\u{7f} \t")
        headers.add(name: "X-Tab", value: "a\tb")
        headers.add(name: "X-Emoji", value: "\u{1F600}")
        #expect(headers.first("X-User") == "alice  X-Admin: true")
        #expect(headers.first("X-Tab") == "a\tb")
        // Above U+00FF there is no Latin-1 byte: the UTF-8 bytes are stored, all obs-text.
        #expect(headers.first("X-Emoji") == latin1String(Array("\u{1F600}".utf8)))
    }

    @Test("a value added as bytes is stored and normalised like the same Latin-1 string")
    func valueBytes() {
        let samples: [[UInt8]] = [
            Array("for=192.0.2.1;proto=https".utf8), [0x20, 0x09, 0x61, 0x0D, 0x0A, 0x62, 0x00, 0x7F, 0x20],
            [0x63, 0x61, 0x66, 0xE9], [], [0x20, 0x20],
        ]
        for sample in samples {
            var asBytes = HTTPHeaders()
            unsafe sample.withUnsafeBufferPointer { unsafe asBytes.add(name: "X-Sample", valueBytes: $0) }
            var asString = HTTPHeaders()
            asString.add(name: "X-Sample", value: latin1String(sample))
            #expect(asBytes == asString, "\(sample)")
            #expect(asBytes.first("X-Sample") == asString.first("X-Sample"))
        }
    }

    @Test("the first Content-Length read in place: digits only, nothing else")
    func firstContentLength() {
        let cases: [(String?, Int?)] = [
            ("0", 0), ("42", 42), ("007", 7), ("999999999999999999", 999_999_999_999_999_999), (nil, nil), ("", nil),
            ("+5", nil), ("-5", nil), ("5 5", nil), ("0x10", nil), ("1234567890123456789", nil), ("4\u{e9}", nil),
        ]
        for (value, expected) in cases {
            var headers: HTTPHeaders = ["Content-Type": "text/plain"]
            if let value { headers.add(name: "content-length", value: value) }
            headers.add(name: "Content-Length", value: "99")
            #expect(headers.firstContentLength == (value == nil ? 99 : expected), "\(value ?? "absent")")
        }
    }

    @Test("every ASCII byte at every position of a long value is normalised like a short one")
    func normalisationAtEveryPosition() {
        // The clean-value check reads eight bytes at a time: put each byte at each offset of
        // values long enough to need several steps and a tail, and compare with the rule.
        for length in [1, 7, 8, 9, 17, 24] {
            for position in 0..<length {
                for byte in UInt8(0)...UInt8(0x7F) {
                    var scalars = [Unicode.Scalar](repeating: "x", count: length)
                    scalars[position] = Unicode.Scalar(byte)
                    var value = ""
                    value.unicodeScalars.append(contentsOf: scalars)
                    var headers = HTTPHeaders()
                    headers.add(name: "X-Value", value: value)
                    let kept = byte == 0x09 || (0x20..<0x7F).contains(byte)
                    var expected = scalars
                    if !kept { expected[position] = " " }
                    var expectedText = ""
                    expectedText.unicodeScalars.append(contentsOf: expected)
                    // Outer whitespace is trimmed, as for any value.
                    expectedText = String(expectedText.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
                    #expect(headers.first("X-Value") == expectedText, "byte \(byte) at \(position) of \(length)")
                }
            }
        }
    }

    @Test("equality and hashing compare the fields, not leftover bytes")
    func equality() {
        var replaced: HTTPHeaders = ["A": "old", "B": "2"]
        replaced.replaceOrAdd(name: "A", value: "1")
        let fresh: HTTPHeaders = ["A": "1", "B": "2"]
        #expect(replaced == fresh)
        #expect(replaced.hashValue == fresh.hashValue)
        #expect(fresh != ["a": "1", "B": "2"], "names compare exactly for equality")
        #expect(fresh != ["B": "2", "A": "1"], "order matters")
        #expect(HTTPHeaders([HTTPHeaders.Field(name: "A", value: "1"), HTTPHeaders.Field(name: "B", value: "2")]) == fresh)
        #expect(fresh.description == "A: 1\nB: 2")
    }

    @Test("a name that is not a token stops the process")
    func invalidNameTraps() async {
        await #expect(processExitsWith: .failure) {
            var headers = HTTPHeaders()
            headers.add(name: "Bad Name", value: "v")
        }
        await #expect(processExitsWith: .failure) {
            _ = HTTPHeaders(dictionaryLiteral: ("X\r\nInjected", "v"))
        }
    }

    @Test("add, replaceOrAdd, remove and removeAll(where:)")
    func mutation() {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "a": "3"]
        headers.add(name: "C", value: "4")
        #expect(headers.map(\.value) == ["1", "2", "3", "4"])
        headers.replaceOrAdd(name: "a", value: "9")
        #expect(headers.map(\.name) == ["A", "B", "C"] && headers.first("a") == "9")
        headers.replaceOrAdd(name: "D", value: "5")
        #expect(headers.last?.name == "D")
        headers.remove("b")
        #expect(!headers.contains("B"))
        headers.removeAll { $0.value == "4" }
        #expect(headers.map(\.name) == ["A", "D"])
        headers.insert(name: "Host", value: "h", at: 0)
        #expect(headers.first?.name == "Host")
    }

    @Test("containsToken reads comma lists, ignoring case, whitespace and empty elements")
    func tokens() {
        let headers: HTTPHeaders = ["Connection": " , Keep-Alive ,,Upgrade", "connection": "close"]
        #expect(headers.containsToken("keep-alive", inField: "Connection"))
        #expect(headers.containsToken("upgrade", inField: "connection"))
        #expect(headers.containsToken("CLOSE", inField: "Connection"))
        #expect(!headers.containsToken("keep", inField: "Connection"))
        #expect(!headers.containsToken("close", inField: "Keep-Alive"))
    }

    @Test("containsMediaType reads media types before their parameters, ignoring case, in every field")
    func mediaTypes() {
        let headers: HTTPHeaders = ["Accept": "application/json ; q=0.5,, Text/Event-Stream;q=0.9 ", "accept": "image/png"]
        #expect(headers.containsMediaType("text/event-stream", inField: "Accept"))
        #expect(headers.containsMediaType("application/json", inField: "Accept"))
        #expect(headers.containsMediaType("image/png", inField: "ACCEPT"))
        #expect(!headers.containsMediaType("text/event", inField: "Accept"))
        #expect(!headers.containsMediaType("q=0.9", inField: "Accept"))
        #expect(!headers.containsMediaType("text/event-stream", inField: "Content-Type"))
        let prefixOnly: HTTPHeaders = ["Accept": "text/event-streams, x-text/event-stream"]
        #expect(!prefixOnly.containsMediaType("text/event-stream", inField: "Accept"))
    }

    @Test("hop-by-hop: the RFC 9110 §7.6.1 set, Proxy-*, and every field Connection names")
    func hopByHop() {
        var headers: HTTPHeaders = [
            "Host": "h", "Connection": "keep-alive, X-Hop, Host", "Keep-Alive": "timeout=5", "Proxy-Connection": "x",
            "TE": "trailers", "Trailer": "X-Sum", "Transfer-Encoding": "chunked", "Upgrade": "websocket",
            "Proxy-Authorization": "Basic x", "Proxy-Authenticate": "Basic", "X-Hop": "1", "X-End": "2",
            "Proxyish": "kept",
        ]
        let kept = HopByHopHeaders.remove(from: &headers)
        #expect(!kept)
        #expect(headers.map(\.name) == ["X-End", "Proxyish"])
        for name in HopByHopHeaders.names { #expect(HopByHopHeaders.isHopByHop(name.uppercased())) }
        #expect(HopByHopHeaders.isHopByHop("proxy-anything"))
        #expect(!HopByHopHeaders.isHopByHop("Proxy"))
        #expect(!HopByHopHeaders.isHopByHop("X-Forwarded-For"))

        // Without any hop-by-hop field (the common request) nothing changes.
        var plain: HTTPHeaders = ["Host": "h", "Accept": "*/*", "X-Keep": "alive"]
        let before = plain
        #expect(!HopByHopHeaders.remove(from: &plain, keepingWebSocketUpgrade: true))
        #expect(plain == before)
        var upgradeOnly: HTTPHeaders = ["Host": "h", "Upgrade": "websocket"]
        #expect(!HopByHopHeaders.remove(from: &upgradeOnly, keepingWebSocketUpgrade: true))
        #expect(upgradeOnly.map(\.name) == ["Host"], "Upgrade is hop-by-hop even without Connection")
    }

    @Test("a plain keep-alive Connection is removed in place; anything more takes the full rules")
    func plainConnection() {
        let cases: [([(String, String)], [String])] = [
            ([("Host", "h"), ("Connection", "keep-alive"), ("X", "1")], ["Host", "X"]),
            ([("Connection", "Keep-Alive"), ("Connection", "close"), ("B", "2")], ["B"]),
            ([("Connection", ""), ("B", "2")], ["B"]),
            ([("Connection", "close"), ("Close", "x"), ("A", "1")], ["A"]),
            ([("Connection", "keep-alive, close"), ("Keep-Alive", "timeout=5"), ("A", "1")], ["A"]),
            ([("Connection", "keep-alive, X-A"), ("X-A", "1"), ("B", "2")], ["B"]),
            ([("Connection", "keep-alive,"), ("B", "2")], ["B"]),
            ([("X-A", "1"), ("Connection", "x-a"), ("B", "2")], ["B"]),
        ]
        for (fields, expected) in cases {
            var headers = HTTPHeaders()
            for (name, value) in fields { headers.add(name: name, value: value) }
            #expect(!HopByHopHeaders.remove(from: &headers))
            #expect(headers.map(\.name) == expected, "\(fields)")
        }
    }

    @Test("a WebSocket upgrade is kept only when asked, only for exactly websocket")
    func webSocketUpgrade() {
        let request: HTTPHeaders = [
            "Host": "h", "Upgrade": "WebSocket", "Connection": "Upgrade, X-Hop", "X-Hop": "1", "Sec-WebSocket-Key": "k",
        ]
        var kept = request
        #expect(HopByHopHeaders.remove(from: &kept, keepingWebSocketUpgrade: true))
        #expect(kept.map(\.name) == ["Host", "Upgrade", "Sec-WebSocket-Key", "Connection"])
        #expect(kept.first("Connection") == "upgrade")
        var stripped = request
        #expect(!HopByHopHeaders.remove(from: &stripped))
        #expect(!stripped.contains("Upgrade") && !stripped.contains("Connection"))

        for upgrade in ["h2c", "websocket, h2c", "websocket/13"] {
            var headers: HTTPHeaders = ["Upgrade": upgrade, "Connection": "Upgrade"]
            #expect(!HopByHopHeaders.remove(from: &headers, keepingWebSocketUpgrade: true), "\(upgrade)")
            #expect(headers.isEmpty, "\(upgrade)")
        }
        var notListed: HTTPHeaders = ["Upgrade": "websocket"]
        #expect(!HopByHopHeaders.remove(from: &notListed, keepingWebSocketUpgrade: true), "Connection must list upgrade")
    }
}
