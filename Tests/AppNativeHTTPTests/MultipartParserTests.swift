@testable import AppNativeHTTP
import AppNativeModels
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// Limits, grammar and streaming properties of `MultipartParser` beyond the multipart vectors (Fixtures/vectors/multipart).
@Suite("Multipart parser")
struct MultipartParserTests {
    static let boundary = "----GwTestBoundary7MA4YWxkTrZu0gW"

    static func parser(_ limits: MultipartLimits = MultipartLimits()) -> MultipartParser {
        // The boundary is a valid constant; a failure here is a test bug.
        MultipartParser(boundary: (try? MultipartBoundary(boundary))!, limits: limits)
    }

    /// A body with one part per `(headers, content)`, closed.
    static func body(_ parts: [(headers: String, content: [UInt8])]) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts {
            bytes += Array("--\(boundary)\r\n\(part.headers)\r\n\r\n".utf8) + part.content + Array("\r\n".utf8)
        }
        return bytes + Array("--\(boundary)--\r\n".utf8)
    }

    static func file(_ size: Int) -> (headers: String, content: [UInt8]) {
        ("Content-Disposition: form-data; name=\"file\"; filename=\"a.bin\"", Array(repeating: UInt8(ascii: "x"), count: size))
    }

    static func field(_ name: String, _ size: Int) -> (headers: String, content: [UInt8]) {
        ("Content-Disposition: form-data; name=\"\(name)\"", Array(repeating: UInt8(ascii: "v"), count: size))
    }

    // MARK: Limits

    @Test("a file of exactly maxFileBytes passes; one byte more is 413 partTooLarge", arguments: [0, 1])
    func fileLimit(extra: Int) {
        let limits = MultipartLimits(maxFileBytes: 1000)
        let outcome = MultipartFeeder.everySplit(Self.body([Self.file(1000 + extra)]), label: "file") { Self.parser(limits) }
        if extra == 0 {
            #expect(outcome.error == nil && outcome.isFinished && outcome.parts.first?.content.count == 1000)
        } else {
            #expect(outcome.error == HTTPParseError(.partTooLarge, reason: ""))
            #expect(outcome.errorStatus == 413)
        }
    }

    @Test("a text field is held to maxFieldBytes, not maxFileBytes", arguments: [0, 1])
    func fieldLimit(extra: Int) {
        let limits = MultipartLimits(maxFieldBytes: 300, maxFileBytes: nil)
        let outcome = MultipartFeeder.everySplit(Self.body([Self.field("context", 300 + extra)]), label: "field") {
            Self.parser(limits)
        }
        #expect(outcome.error == (extra == 0 ? nil : HTTPParseError(.partTooLarge, reason: "")))
        #expect(outcome.isFinished == (extra == 0))
    }

    @Test("maxParts parts pass; one more is 413 tooManyParts", arguments: [0, 1])
    func partLimit(extra: Int) {
        let parts = (0..<(5 + extra)).map { Self.field("f\($0)", 1) }
        let outcome = MultipartFeeder.everySplit(Self.body(parts), label: "parts") { Self.parser(MultipartLimits(maxParts: 5)) }
        #expect(outcome.error == (extra == 0 ? nil : HTTPParseError(.tooManyParts, reason: "")))
        #expect(outcome.errorStatus == (extra == 0 ? nil : 413))
        #expect(outcome.parts.count == 5)
    }

    @Test("maxHeaderCount header lines pass; one more is 413 tooManyPartHeaders", arguments: [0, 1])
    func headerCountLimit(extra: Int) {
        let extraHeaders = (0..<(3 + extra)).map { "X-H\($0): v" }.joined(separator: "\r\n")
        let headers = "Content-Disposition: form-data; name=\"a\"\r\n" + extraHeaders
        let outcome = MultipartFeeder.everySplit(Self.body([(headers, [1])]), label: "headers") {
            Self.parser(MultipartLimits(maxHeaderCount: 4))
        }
        #expect(outcome.error == (extra == 0 ? nil : HTTPParseError(.tooManyPartHeaders, reason: "")))
        #expect(outcome.errorStatus == (extra == 0 ? nil : 413))
    }

    @Test("a header line of maxHeaderLineBytes passes; one byte more is 413 partHeaderTooLarge", arguments: [0, 1])
    func headerLineLimit(extra: Int) {
        let prefix = "Content-Disposition: form-data; name=\""
        let name = String(repeating: "n", count: 100 - prefix.utf8.count - 1 + extra)
        let outcome = MultipartFeeder.everySplit(Self.body([(prefix + name + "\"", [1])]), label: "line") {
            Self.parser(MultipartLimits(maxHeaderLineBytes: 100))
        }
        #expect(outcome.error == (extra == 0 ? nil : HTTPParseError(.partHeaderTooLarge, reason: "")))
    }

    // MARK: Streaming

    /// Content full of delimiter prefixes (`CRLF--`, the boundary minus its last byte, `CR` after
    /// the boundary) fed in small random chunks: the held-back bytes never exceed one delimiter,
    /// and nothing of the content is lost or invented.
    @Test("lookbehind stays within one delimiter, whatever the content")
    func boundedLookbehind() {
        var random = SplitMix64(seed: 7)
        let near = Array("\r\n--\(Self.boundary)".utf8)
        var content: [UInt8] = []
        while content.count < 200_000 {
            switch random.next() % 4 {
            case 0: content += near.prefix(Int(random.next() % UInt64(near.count)))
            case 1: content += near + [UInt8(ascii: "-"), UInt8(ascii: "x")]
            case 2: content += near + [0x0D, 0x0D]
            default:
                // Never the boundary's last byte: a prefix of `near` must not become a delimiter.
                content += (0..<Int(random.next() % 40)).map { _ in
                    let byte = UInt8(truncatingIfNeeded: random.next())
                    return byte == UInt8(ascii: "W") ? 0 : byte
                }
            }
        }
        let bytes = Self.body([("Content-Disposition: form-data; name=\"file\"; filename=\"x\"", content)])
        for split in Split.all(for: bytes.count) {
            var parser = Self.parser()
            let outcome = MultipartFeeder.feed(bytes, to: &parser, split: split)
            #expect(outcome.violations.isEmpty, "\(split): \(outcome.violations)")
            #expect(outcome.error == nil, "\(split)")
            #expect(outcome.parts.first?.content == content, "\(split)")
            #expect(outcome.longestHeld <= near.count + 1, "\(split): held \(outcome.longestHeld)")
        }
    }

    @Test("content in one buffer is handed on as ranges of that buffer, without holding anything")
    func zeroCopyInOneBuffer() {
        var parser = Self.parser()
        let bytes = Self.body([Self.file(10_000)])
        let outcome = MultipartFeeder.feed(bytes, to: &parser, split: Split(name: "whole", sizes: [bytes.count]))
        #expect(outcome.longestHeld == 0)
        #expect(outcome.parts.first?.content.count == 10_000)
    }

    @Test("errors are sticky: parse throws the same code again")
    func stickyError() {
        var parser = Self.parser()
        let bad = Array("--\(Self.boundary)\r\nGarbage\r\n\r\n".utf8)
        var first: HTTPParseError?
        unsafe bad.withUnsafeBytes { buffer in
            do throws(HTTPParseError) { _ = unsafe try parser.parse(buffer) } catch { first = error }
        }
        #expect(first == HTTPParseError(.invalidHeader, reason: ""))
        var second: HTTPParseError?
        unsafe Array("more".utf8).withUnsafeBytes { buffer in
            do throws(HTTPParseError) { _ = unsafe try parser.parse(buffer) } catch { second = error }
        }
        #expect(second == HTTPParseError(.invalidHeader, reason: ""))
        #expect(throws: HTTPParseError(.invalidHeader, reason: "")) { _ = try parser.finish() }
    }

    @Test("a close delimiter at the very end of the body, without CRLF, finishes on finish()")
    func closeWithoutCRLF() {
        var bytes = Self.body([Self.field("a", 3)])
        bytes.removeLast(2)
        let outcome = MultipartFeeder.everySplit(bytes, label: "close") { Self.parser() }
        #expect(outcome.error == nil && outcome.isFinished && outcome.parts.count == 1)
    }

    @Test("delimiter lines: what follows the boundary decides", arguments: [
        ("  \t\r\n", "ok"), ("\r\n", "ok"), (" x\r\n", "invalidDelimiter"), (" \n", "invalidDelimiter"),
        ("\r\r\n", "content"), ("x\r\n", "content"), ("-x\r\n", "content"),
    ])
    func delimiterLine(suffix: String, expected: String) {
        let first = "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n"
        let bytes = Array((first + "--\(Self.boundary)\(suffix)--\(Self.boundary)--\r\n").utf8)
        // "ok": the second delimiter opens a part whose header section is "--boundary--" (no
        // colon), so the body is refused with invalidHeader, after a complete first part.
        let outcome = MultipartFeeder.everySplit(bytes, label: suffix) { Self.parser() }
        switch expected {
        case "ok":
            #expect(outcome.parts.first?.isComplete == true && outcome.error == HTTPParseError(.invalidHeader, reason: ""))
        case "content":
            // Not a delimiter: the line is content of part a, and the suffix's CRLF begins the
            // close delimiter.
            #expect(outcome.error == nil && outcome.isFinished)
            let content = outcome.parts.first.map { String(decoding: $0.content, as: UTF8.self) }
            #expect(content == "1\r\n--\(Self.boundary)" + suffix.dropLast())  // "\r\n" is one Character
        default:
            #expect(outcome.error == HTTPParseError(.invalidDelimiter, reason: ""))
        }
    }

    /// The Python reference's reading of part headers (python-multipart's `parse_options_header`,
    /// then Starlette): loose where it is loose, `name` required.
    @Test("part header rules", arguments: [
        ("Content-Disposition: form-data; name=\"a\"\r\nContent-Type: text/plain\r\nContent-Type: text/html", "ok"),
        ("Content-Disposition: form-data; name=\"a\"\r\nContent-Type: text", "ok"),
        ("Content-Disposition : form-data; name=\"a\"", "whitespaceBeforeColon"),
        ("Content-Disposition: form-data; name=\"a\"\r\nContent-Transfer-Encoding: BINARY", "ok"),
        ("Content-Disposition: form-data; name=\"a\"\r\nContent-Transfer-Encoding: quoted-printable", "ok"),
        ("Content-Disposition: form-data; name=\"a\"; filename*=UTF-8''a%00b", "ok"),
        ("Content-Disposition: form-data; name=\"a\"; filename*=KOI8-R''ab", "ok"),
        ("Content-Disposition: form-data; name=\"a\"; filename=\"a\tb\"", "ok"),
        ("Content-Disposition: form-data; name=\"a\"; filename=\"a\u{7F}b\"", "invalidHeader"),
        ("Content-Disposition: form-data; name=\"a\tb\"", "ok"),
        ("Content-Disposition: form-data; name=\"a\"; filename=\"\u{FF}\"", "ok"),
        ("Content-Disposition: form-data; name=\"a\"; filename=\"a\\\"b\\\\c\\d\"", "ok"),
        ("Content-Disposition: form-data; name=\"a\";", "ok"),
        ("Content-Disposition: form-data; name=\"a\";;", "ok"),
        ("Content-Disposition: form-data; name = \"a\"", "ok"),
        ("Content-Disposition: form-data; name=\"a", "ok"),
        ("Content-Disposition: form-data; NAME=a; Name=b", "ok"),
        ("Content-Disposition: attachment; name=\"a\"", "ok"),
        ("Content-Disposition: form-data", "missingPartName"),
        ("Content-Disposition: form-data; filename=\"a\"", "missingPartName"),
        ("Content-Type: text/plain", "missingPartName"),
    ])
    func headerRules(headers: String, expected: String) {
        let outcome = MultipartFeeder.everySplit(Self.body([(headers, [1])]), label: headers) { Self.parser() }
        if expected == "ok" {
            #expect(outcome.error == nil, "\(outcome.summary)")
        } else {
            #expect(outcome.error.map { "\($0.code)" } == expected, "\(outcome.summary)")
            #expect(outcome.errorStatus == 400)
        }
    }

    @Test("a delimiter line inside a header section is refused, even when the boundary holds a colon")
    func delimiterInHeaders() throws {
        let boundary = try MultipartBoundary("a:b")
        let bytes = Array("--a:b\r\nContent-Disposition: form-data; name=\"x\"\r\n--a:b\r\n\r\ndata\r\n--a:b--\r\n".utf8)
        let outcome = MultipartFeeder.everySplit(bytes, label: "a:b") { MultipartParser(boundary: boundary) }
        #expect(outcome.error == HTTPParseError(.invalidHeader, reason: ""))
        #expect(outcome.parts.isEmpty)
    }

    @Test("quoted-string backslashes escape only tspecials")
    func backslashRule() {
        let headers = "Content-Disposition: form-data; name=\"a\"; filename=\"a\\\"b\\\\c\\d\""
        let outcome = MultipartFeeder.everySplit(Self.body([(headers, [1])]), label: "backslash") { Self.parser() }
        #expect(outcome.parts.first?.head.filename == "a\"b\\c\\d")
    }

    @Test("a filename that is not UTF-8 is read as Latin-1, as the reference reads it")
    func filenameNotUTF8() {
        let bytes = Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"a\"; filename=\"".utf8) + [0xFF]
            + Array("\"\r\n\r\n1\r\n--\(Self.boundary)--\r\n".utf8)
        let outcome = MultipartFeeder.everySplit(bytes, label: "latin1") { Self.parser() }
        #expect(outcome.error == nil)
        #expect(outcome.parts.first?.head.filename == "\u{FF}")
    }

    /// python-multipart's `parse_options_header` (with `_parseparam`), then Starlette's decoding,
    /// on the dispositions the differential suite sends: each name and filename is what the
    /// reference's callback gets.
    @Test("Content-Disposition parameters as the reference reads them", arguments: [
        (#"form-data; name="file"; filename="plain.pdf"; filename*=UTF-8''%C3%BCber.pdf"#, "file", "plain.pdf"),
        (#"form-data; name="file"; filename*=UTF-8''star.pdf; filename="plain.pdf""#, "file", "plain.pdf"),
        (#"form-data; name="file"; filename*=UTF-8''%C3%BCber.pdf"#, "file", nil),
        (#"form-data; name="file"; filename="a\"b.pdf""#, "file", #"a"b.pdf"#),
        (#"form-data; name="file"; filename="a"b.pdf""#, "file", #"a"b.pdf"#),
        (#"form-data; name="file"; filename="a;b.pdf""#, "file", "a;b.pdf"),
        (#"form-data; name="fi;le"; filename="x""#, "fi;le", "x"),
        (#"attachment; name="file"; filename="att.pdf""#, "file", "att.pdf"),
        (#"form-data; name="file"; filename="a.pdf"; filename="b.pdf""#, "file", "b.pdf"),
        (#"FORM-DATA; NAME="file"; FILENAME="up.pdf""#, "file", "up.pdf"),
        (#"form-data;name="file";filename="n.pdf""#, "file", "n.pdf"),
        (#"form-data; name=file; filename=bare.pdf"#, "file", "bare.pdf"),
        (#"form-data; name="file"; filename="C:\\Users\\x\\a.pdf""#, "file", "a.pdf"),
        ("form-data; name=\"file\"; filename=\"a\tb.pdf\"", "file", "a\tb.pdf"),
        (#"form-data; name="file"; filename"#, "file", ""),
    ] as [(String, String, String?)])
    func dispositionAsTheReferenceReadsIt(header: String, name: String, filename: String?) throws {
        let value = try ContentDisposition.parse(Array(header.utf8))
        #expect(value.name == name)
        #expect(value.filename == filename)
    }

    @Test("Latin-1 filename bytes are decoded as Latin-1")
    func latin1Filename() throws {
        let value = try ContentDisposition.parse(Array(#"form-data; name="file"; filename=""#.utf8) + [0xE9, 0x74, 0xE9] + Array(#".pdf""#.utf8))
        #expect(value.filename == "\u{E9}t\u{E9}.pdf")
    }

    // MARK: Boundary and Content-Type

    /// RFC 2046 §5.1.1: bchars := bcharsnospace / " "; bcharsnospace := DIGIT / ALPHA / "'" /
    /// "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?"
    @Test("boundary characters, over every byte value")
    func boundaryGrammar() {
        let allowed = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'()+_,-./:=? ".utf8)
        for byte in 0...255 {
            let text = "a" + String(Character(Unicode.Scalar(UInt8(byte)))) + "b"
            let isAccepted = (try? MultipartBoundary(text)) != nil
            #expect(isAccepted == allowed.contains(UInt8(byte)), "byte \(byte)")
        }
    }

    @Test("boundary length is 1 to 70, and it must not end in a space")
    func boundaryLength() {
        #expect((try? MultipartBoundary(String(repeating: "b", count: 70))) != nil)
        #expect(throws: HTTPParseError(.invalidBoundary, reason: "")) { try MultipartBoundary(String(repeating: "b", count: 71)) }
        #expect(throws: HTTPParseError(.invalidBoundary, reason: "")) { try MultipartBoundary("") }
        #expect(throws: HTTPParseError(.invalidBoundary, reason: "")) { try MultipartBoundary("ab ") }
    }

    @Test("request Content-Type", arguments: [
        ("multipart/form-data; boundary=abc", "abc"),
        ("MULTIPART/FORM-DATA;BOUNDARY=abc", "abc"),
        ("multipart/form-data; charset=utf-8; boundary=\"a b:c\"", "a b:c"),
        ("multipart/form-data; boundary=abc;", "abc"),
        ("multipart/mixed; boundary=abc", "invalidMultipartType"),
        ("multipart/form-data; boundary=abc; charset=a; charset=b", "invalidMultipartType"),
        ("multipart/form-data boundary=abc", "invalidMultipartType"),
        ("multipart/form-data; boundary=", "invalidMultipartType"),
        ("multipart/form-data; boundary=abc; BOUNDARY=abc", "invalidBoundary"),
        ("multipart/form-data; boundary=\"a\\\"b\"", "invalidBoundary"),
        ("multipart/form-data", "missingBoundary"),
    ])
    func requestContentType(contentType: String, expected: String) {
        do {
            let boundary = try MultipartBoundary(contentType: contentType)
            #expect(boundary.value == expected)
        } catch {
            #expect("\(error.code)" == expected)
            #expect(error.status == 400)
        }
    }

    // MARK: Document filename (contract/routes.md §2.8)

    @Test("document filename rule", arguments: [
        ("../../etc/passwd", "passwd"),
        ("C:\\temp\\scan.jpg", "scan.jpg"),
        ("..", "upload"),
        ("a/..", "upload"),
        ("", "upload"),
        (".", "upload"),
        ("/", "upload"),
        ("\\\\server\\share\\", "share"),
        ("dir/name.pdf/", "name.pdf"),
        ("a/./", "a"),
        ("x/.", "x"),
        ("a/./..", "upload"),
        ("report.pdf", "report.pdf"),
        ("...", "..."),
        (".hidden", ".hidden"),
        ("été €.txt", "été €.txt"),
        ("a%2F..%2Fb", "a%2F..%2Fb"),
    ])
    func documentFilename(raw: String, expected: String) {
        #expect(DocumentMetadata.sanitizedFilename(raw) == expected)
    }
}
