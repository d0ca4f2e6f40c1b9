import AppNativeHTTP
import AppNativeTesting
import Foundation
import Testing

/// `MultipartWriter`: wire format, escaping, round trip through `MultipartParser`, and an
/// independent reader (Python's standard-library `email` parser).
@Suite("Multipart writer")
struct MultipartWriterTests {
    /// A form the gateway would forward: text fields, then a file whose content arrives in chunks.
    struct Upload {
        var fields: [(name: String, value: String)]
        var fileName: String
        var filename: String
        var contentType: String?
        var chunks: [[UInt8]]

        func encode(with boundary: MultipartBoundary) -> [UInt8] {
            var writer = MultipartWriter(boundary: boundary)
            var bytes: [UInt8] = []
            for field in fields { bytes += writer.field(name: field.name, value: field.value) }
            bytes += writer.beginFile(name: fileName, filename: filename, contentType: contentType)
            for chunk in chunks { bytes += chunk }
            return bytes + writer.finish()
        }
    }

    static let binary: [UInt8] = Array(0...255) + Array("\r\n--AppNativeFormBoundary\r\n\r\n--".utf8) + [0x0D, 0x0A, 0x0A, 0x0D]

    static let upload = Upload(
        fields: [
            ("device_id", "dev-42"), ("user_email", ""), ("context", "{\"a\": [1, 2],\r\n \"b\": \"é\"}"),
            ("na\"me\r\nX-Injected: 1", "v"), ("名前", "値"),
        ],
        fileName: "file",
        filename: "scan \"final\"\r\n.pdf",
        contentType: "application/pdf",
        chunks: [Array(binary[0..<100]), [], Array(binary[100...])]
    )

    @Test("exact wire bytes for a field and a file")
    func wireFormat() throws {
        var writer = MultipartWriter(boundary: try MultipartBoundary("XyZ"))
        var bytes = writer.field(name: "a", value: "1")
        bytes += writer.beginFile(name: "f", filename: "x.txt", contentType: nil)
        bytes += Array("data".utf8)
        bytes += writer.finish()
        let expected = "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\ndata\r\n--XyZ--\r\n"
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(writer.contentType == "multipart/form-data; boundary=XyZ")
    }

    @Test("a byte field is sent unchanged, even when it is not UTF-8")
    func byteField() throws {
        var writer = MultipartWriter(boundary: try MultipartBoundary("XyZ"))
        let bytes = writer.field(name: "raw", value: [0xFF, 0x00, 0x0D]) + writer.finish()
        let outcome = MultipartFeeder.everySplit(bytes, label: "bytes") { MultipartParser(boundary: writer.boundary) }
        #expect(outcome.error == nil && outcome.parts.first?.content == [0xFF, 0x00, 0x0D])
    }

    @Test("an empty form is the close delimiter alone")
    func emptyForm() throws {
        var writer = MultipartWriter(boundary: try MultipartBoundary("XyZ"))
        #expect(String(decoding: writer.finish(), as: UTF8.self) == "--XyZ--\r\n")
    }

    @Test("names and filenames escape \" and \\ as quoted-pairs, CR and LF as WHATWG does; nothing else changes")
    func escaping() throws {
        var writer = MultipartWriter(boundary: try MultipartBoundary("XyZ"))
        let wire = writer.beginFile(name: "a\"b\rc\nd é", filename: "x\"\r\n%22.txt", contentType: "text/plain\r\nX: y")
        let head = String(decoding: wire, as: UTF8.self)
        #expect(head.contains(#"name="a\"b%0Dc%0Ad é"; filename="x\"%0D%0A%22.txt""# + "\r\n"))
        #expect(head.contains("Content-Type: application/octet-stream\r\n"), "a content type with CR/LF is not forwarded")
        #expect(head.components(separatedBy: "\r\n").count == 5)
    }

    @Test("Content-Type quotes a boundary that is not a token, and parses back to the same boundary")
    func contentTypeRoundTrip() throws {
        for value in ["XyZ", "a b", "a:b?c=d", String(repeating: "z", count: 70)] {
            let writer = MultipartWriter(boundary: try MultipartBoundary(value))
            #expect(try MultipartBoundary(contentType: writer.contentType).value == value)
        }
    }

    @Test("random boundaries are valid, long and distinct")
    func randomBoundaries() {
        let boundaries = (0..<100).map { _ in MultipartBoundary.random() }
        #expect(Set(boundaries).count == 100)
        for boundary in boundaries {
            #expect((try? MultipartBoundary(boundary.value)) == boundary)
            #expect(boundary.value.utf8.count == 53)
        }
        #expect(MultipartWriter().boundary != MultipartWriter().boundary)
    }

    @Test("writer output parses back to the same parts under every split")
    func roundTrip() {
        let boundary = MultipartBoundary.random()
        let bytes = Self.upload.encode(with: boundary)
        let outcome = MultipartFeeder.everySplit(bytes, label: "round trip") { MultipartParser(boundary: boundary) }
        #expect(outcome.error == nil && outcome.isFinished)
        #expect(outcome.parts.count == 6)
        let expectedNames = ["device_id", "user_email", "context", "na\"me%0D%0AX-Injected: 1", "名前", "file"]
        #expect(outcome.parts.map(\.head.name) == expectedNames)
        for (part, field) in zip(outcome.parts, Self.upload.fields) {
            #expect(part.content == Array(field.value.utf8), "\(field.name)")
            #expect(!part.head.isFile && part.head.contentType == nil)
        }
        let file = outcome.parts.last
        #expect(file?.head.filename == "scan \"final\"%0D%0A.pdf")
        #expect(file?.head.contentType == "application/pdf")
        #expect(file?.content == Self.binary)
    }

    /// Python's `email` package is an independent MIME reader that ships with every python3; it
    /// reads the body as the upstream would (RFC 2046 boundaries, RFC 2231 parameters).
    static let pythonReader = """
        import email.parser, email.policy, json, sys
        content_type = sys.argv[1]
        body = bytes.fromhex(sys.stdin.read().strip())
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"MIME-Version: 1.0\\r\\nContent-Type: " + content_type.encode("ascii") + b"\\r\\n\\r\\n" + body)
        if not message.is_multipart() or message.defects:
            sys.exit("not a clean multipart message: %r" % (message.defects,))
        parts = []
        for part in message.iter_parts():
            if part.defects:
                sys.exit("part defects: %r" % (part.defects,))
            parts.append({
                "disposition": part.get_content_disposition(),
                "name": part.get_param("name", header="content-disposition"),
                "filename": part.get_filename(),
                "contentType": part.get("Content-Type"),
                "data": part.get_payload(decode=True).hex(),
            })
        print(json.dumps(parts))
        """

    @Test("Python's email parser reads the writer's output as the same form")
    func pythonInterop() async throws {
        let writer = MultipartWriter()
        let bytes = Self.upload.encode(with: writer.boundary)
        let output = try await ProcessRunner.run(
            ProcessRunner.python, ["-c", Self.pythonReader, writer.contentType], input: Hex.string(bytes)
        )
        try #require(output.status == 0, "python: \(output.stderr)")
        let parts = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        try #require(parts.count == 6)
        let expectedNames = ["device_id", "user_email", "context", "na\"me%0D%0AX-Injected: 1", "名前", "file"]
        #expect(parts.map { $0["name"] as? String } == expectedNames)
        #expect(parts.allSatisfy { $0["disposition"] as? String == "form-data" })
        for (part, field) in zip(parts, Self.upload.fields) {
            #expect(part["data"] as? String == Hex.string(Array(field.value.utf8)), "\(field.name)")
            #expect(part["filename"] is NSNull)
        }
        #expect(parts[5]["filename"] as? String == "scan \"final\"%0D%0A.pdf")
        #expect(parts[5]["contentType"] as? String == "application/pdf")
        #expect(parts[5]["data"] as? String == Hex.string(Self.binary))
    }
}
