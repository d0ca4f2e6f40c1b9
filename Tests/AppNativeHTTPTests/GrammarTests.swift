import AppNativeHTTP
import Testing

/// Each grammar rule the parser enforces, checked over every byte value against a reference
/// written straight from the RFC text, and each byte fed under every split.
@Suite("Grammar over every byte value")
struct GrammarTests {
    static let allBytes = Array(UInt8.min...UInt8.max)

    // RFC 5234 B.1: ALPHA = %x41-5A / %x61-7A; DIGIT = %x30-39; HTAB = %x09; SP = %x20;
    // VCHAR = %x21-7E
    static func isAlpha(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    static func isVchar(_ byte: UInt8) -> Bool { (0x21...0x7E).contains(byte) }

    /// RFC 9110 §5.6.2:
    ///   tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
    ///         / DIGIT / ALPHA ; any VCHAR, except delimiters
    static func isTchar(_ byte: UInt8) -> Bool {
        Array("!#$%&'*+-.^_`|~".utf8).contains(byte) || isDigit(byte) || isAlpha(byte)
    }

    /// RFC 9110 §5.5: field-vchar = VCHAR / obs-text; obs-text = %x80-FF
    static func isFieldVchar(_ byte: UInt8) -> Bool { isVchar(byte) || byte >= 0x80 }

    static func text(_ byte: UInt8) -> String { latin1String([byte]) }

    @Test("field-name = token; token = 1*tchar (RFC 9110 §5.1, §5.6.2)", arguments: allBytes)
    func fieldNameByte(_ byte: UInt8) throws {
        let outcome = EverySplit.request("GET / HTTP/1.1\r\nHost: h\r\nA\(Self.text(byte))b: v\r\n\r\n")
        if Self.isTchar(byte) {
            let head = try #require(outcome.messages.first?.head, "byte \(byte)")
            #expect(head.headers.first("A\(Self.text(byte))b") == "v", "byte \(byte)")
        } else if byte == UInt8(ascii: ":") {
            // The colon ends the name: field "A" with value "b: v".
            #expect(outcome.messages.first?.head.headers.first("A") == "b: v")
        } else {
            #expect(outcome.error?.status == 400, "byte \(byte) must not be accepted in a field name")
        }
    }

    @Test("method = token (RFC 9110 §9.1): a token not on the allow-list is 501, anything else 400", arguments: allBytes)
    func methodByte(_ byte: UInt8) {
        // "X?Y" is never on the allow-list. SP ends the method: "X" is a token, so 501 too.
        let outcome = EverySplit.request("X\(Self.text(byte))Y / HTTP/1.1\r\nHost: h\r\n\r\n")
        let expected = Self.isTchar(byte) || byte == 0x20 ? 501 : 400
        #expect(outcome.error?.status == expected, "byte \(byte)")
    }

    @Test("field-value = *field-content; field-content = field-vchar [ 1*( SP / HTAB / field-vchar ) field-vchar ] (RFC 9110 §5.5)", arguments: allBytes)
    func fieldValueByte(_ byte: UInt8) throws {
        let inner = EverySplit.request("GET / HTTP/1.1\r\nHost: h\r\nX: a\(Self.text(byte))b\r\n\r\n")
        let alone = EverySplit.request("GET / HTTP/1.1\r\nHost: h\r\nX: \(Self.text(byte))\r\n\r\n")
        if Self.isFieldVchar(byte) {
            #expect(inner.messages.first?.head.headers.first("X") == "a\(Self.text(byte))b", "byte \(byte)")
            #expect(alone.messages.first?.head.headers.first("X") == Self.text(byte), "byte \(byte)")
        } else if byte == 0x20 || byte == 0x09 {
            // RFC 9110 §5.6.3: OWS = *( SP / HTAB ), inside a value it stays, around it it goes.
            #expect(inner.messages.first?.head.headers.first("X") == "a\(Self.text(byte))b", "byte \(byte)")
            #expect(alone.messages.first?.head.headers.first("X") == "", "byte \(byte)")
        } else {
            #expect(inner.error?.status == 400, "byte \(byte) must not be accepted in a field value")
            #expect(alone.error?.status == 400, "byte \(byte) must not be accepted in a field value")
        }
    }

    /// Long values are scanned sixteen and eight bytes at a time before the byte loop: each class
    /// boundary at every offset of a 40-byte run must get the byte loop's verdict.
    @Test(
        "field-value bytes at every offset of a long value (the word-at-a-time scan)",
        arguments: [0x00, 0x08, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0x9F, 0xA0, 0xFE, 0xFF] as [UInt8])
    func longFieldValueByte(_ byte: UInt8) throws {
        for offset in 0..<40 {
            var run = [UInt8](repeating: UInt8(ascii: "a"), count: 40)
            run[offset] = byte
            let value = "<" + latin1String(run) + ">"
            let outcome = EverySplit.request("GET / HTTP/1.1\r\nHost: h\r\nX: \(value)\r\n\r\n")
            if Self.isFieldVchar(byte) || byte == 0x20 || byte == 0x09 {
                #expect(outcome.messages.first?.head.headers.first("X") == value, "byte \(byte) at \(offset)")
            } else {
                #expect(outcome.error?.status == 400, "byte \(byte) at \(offset) must not be accepted")
            }
        }
    }

    @Test("request-target bytes: VCHAR except \"#\" (RFC 9112 §3.2; no whitespace, no fragment)", arguments: allBytes)
    func targetByte(_ byte: UInt8) {
        let outcome = EverySplit.request("GET /a\(Self.text(byte))b HTTP/1.1\r\nHost: h\r\n\r\n")
        if Self.isVchar(byte) && byte != UInt8(ascii: "#") {
            #expect(outcome.messages.first?.head.target == "/a\(Self.text(byte))b", "byte \(byte)")
        } else {
            #expect(outcome.error?.status == 400, "byte \(byte) must not be accepted in a request target")
        }
    }

    @Test("chunk-size = 1*HEXDIG; HEXDIG = DIGIT / \"A\"-\"F\", case-insensitive (RFC 9112 §7.1, RFC 5234)", arguments: allBytes)
    func chunkSizeByte(_ byte: UInt8) throws {
        let hexValue = Int(Self.text(byte), radix: 16)
        let body: String
        if let hexValue, hexValue > 0 {
            body = "\(Self.text(byte))\r\n" + String(repeating: "x", count: hexValue) + "\r\n0\r\n\r\n"
        } else {
            body = "\(Self.text(byte))\r\n\r\n"
        }
        let outcome = EverySplit.request("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
        if let hexValue {
            let message = try #require(outcome.messages.first, "byte \(byte)")
            #expect(message.isComplete && message.body.count == hexValue, "byte \(byte)")
        } else {
            #expect(outcome.error?.status == 400, "byte \(byte) must not be accepted as a chunk size")
        }
    }

    @Test("chunk-ext-val quoted-string: qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text (RFC 9110 §5.6.4)", arguments: allBytes)
    func quotedExtensionByte(_ byte: UInt8) {
        // "\\" starts a quoted-pair, which "b" completes.
        let isQdtext = byte == UInt8(ascii: "\\") || byte == 0x09 || byte == 0x20 || byte == 0x21 || (0x23...0x5B).contains(byte)
            || (0x5D...0x7E).contains(byte) || byte >= 0x80
        let outcome = EverySplit.request(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;n=\"a\(Self.text(byte))b\"\r\nx\r\n0\r\n\r\n"
        )
        if isQdtext {
            #expect(outcome.messages.first?.isComplete == true, "byte \(byte)")
        } else {
            #expect(outcome.error?.status == 400, "byte \(byte) must not be accepted in a quoted string")
        }
    }

    @Test("Host reg-name = *( unreserved / pct-encoded / sub-delims ), without \",\" (RFC 3986 §3.2.2, gateway policy)", arguments: allBytes)
    func hostByte(_ byte: UInt8) {
        // unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
        // sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
        let isHostByte = Self.isAlpha(byte) || Self.isDigit(byte) || Array("-._~!$&'()*+;=".utf8).contains(byte)
        let outcome = EverySplit.request("GET / HTTP/1.1\r\nHost: a\(Self.text(byte))b\r\n\r\n")
        if isHostByte {
            #expect(outcome.error == nil, "byte \(byte)")
        } else {
            #expect(outcome.error?.status == 400, "byte \(byte) must not be accepted in Host")
        }
    }

    @Test("quoted-pair = \"\\\" ( HTAB / SP / VCHAR / obs-text ) (RFC 9110 §5.6.4)", arguments: allBytes)
    func quotedPairByte(_ byte: UInt8) {
        let isPairable = byte == 0x09 || byte == 0x20 || Self.isVchar(byte) || byte >= 0x80
        let outcome = EverySplit.request(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;n=\"\\\(Self.text(byte))\"\r\nx\r\n0\r\n\r\n"
        )
        if isPairable {
            #expect(outcome.messages.first?.isComplete == true, "byte \(byte)")
        } else {
            #expect(outcome.error?.status == 400, "byte \(byte) must not be accepted in a quoted-pair")
        }
    }
}
