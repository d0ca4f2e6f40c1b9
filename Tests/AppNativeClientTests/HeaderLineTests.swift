import AppNativeClient
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// Response header lines as libcurl hands them over, one per call (`HTTPHeaderField.collect`).
@Suite("Response header lines")
struct HeaderLineTests {
    private func collect(_ lines: [[UInt8]]) -> [HTTPHeaderField] {
        var fields: [HTTPHeaderField] = []
        for line in lines { unsafe line.withUnsafeBytes { unsafe HTTPHeaderField.collect(line: $0, into: &fields) } }
        return fields
    }

    @Test("fields of the last block only, trimmed, obs-fold joined, lines without a colon ignored, Latin-1 kept")
    func blocks() {
        let fields = collect([
            Array("HTTP/1.1 100 Continue\r\n".utf8), Array("X-Interim: 1\r\n".utf8), Array("\r\n".utf8),
            Array("HTTP/1.1 200 OK\r\n".utf8), Array("X-A:  a \t\r\n".utf8), Array("\t b\r\n".utf8),
            Array("no colon\r\n".utf8), [0x58, 0x2D, 0x4C, 0x3A, 0x20, 0x63, 0x61, 0x66, 0xE9, 0x0D, 0x0A],
            Array("X-Authz-a b : 1\n".utf8), Array("\r\n".utf8),
        ])
        #expect(fields == [
            HTTPHeaderField(name: "X-A", value: "a b"), HTTPHeaderField(name: "X-L", value: "caf\u{E9}"),
            HTTPHeaderField(name: "X-Authz-a b", value: "1"),
        ])
    }

    /// Found by FuzzAuthorizationHook: a blank continuation line left a trailing SP, and a
    /// continuation of an empty value a leading one.
    @Test("obs-fold never leaves whitespace around a value")
    func foldWhitespace() {
        let fields = collect([
            Array("HTTP/1.1 200 OK\r\n".utf8), Array("X-A: a\r\n".utf8), Array(" \n".utf8), Array("X-B:\r\n".utf8),
            Array("\t b \r\n".utf8), Array("X-C:\r\n".utf8), Array(" \t \r\n".utf8),
        ])
        #expect(fields == [HTTPHeaderField(name: "X-A", value: "a"), HTTPHeaderField(name: "X-B", value: "b"), HTTPHeaderField(name: "X-C", value: "")])
    }
}
