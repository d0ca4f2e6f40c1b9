@testable import AppNativeServer
import Testing

@Suite struct ConnectionPrefaceTests {
    /// RFC 9113 §3.4: the preface, whole or followed by frames, is HTTP/2.
    @Test func wholePrefaceIsHTTP2() {
        #expect(ConnectionPreface.classify(ConnectionPreface.bytes[...]) == .http2)
        #expect(ConnectionPreface.classify((ConnectionPreface.bytes + [0, 0, 0, 4])[...]) == .http2)
    }

    /// Every strict prefix waits for more bytes; nothing is decided on a split preface.
    @Test func everyStrictPrefixIsUndecided() {
        for count in 0..<ConnectionPreface.bytes.count {
            #expect(ConnectionPreface.classify(ConnectionPreface.bytes.prefix(count)) == .undecided, "prefix \(count)")
        }
    }

    /// An HTTP/1.1 request differs at its first byte, or (for a method starting with P) soon after.
    @Test(arguments: ["GET / HTTP/1.1\r\n", "POST / HTTP/1.1\r\n", "PUT /x HTTP/1.1\r\n", "PRI / HTTP/1.1\r\n", "PATCH / HTTP/1.1\r\n"])
    func http1RequestsAreHTTP1(_ line: String) {
        #expect(ConnectionPreface.classify(Array(line.utf8)[...]) == .http1)
    }

    /// The decision never depends on where the input starts in its buffer.
    @Test func sliceOffsetsAreHonoured() {
        let buffer = Array("xx".utf8) + ConnectionPreface.bytes
        #expect(ConnectionPreface.classify(buffer[2...]) == .http2)
        #expect(ConnectionPreface.classify(buffer[0...]) == .http1)
    }
}
