import AppNativeCrypto
import AppNativeHTTP
import AppNativeTesting
import Foundation
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// The document route (contract/routes.md §2.8) through the gateway to the example upstream: streamed,
/// sanitised, capped, re-encoded.
@Suite("Native routes: documents", .serialized)
struct NativeDocumentTests {
    static let boundary = "----appnative-test-boundary-7MA4YWxkTrZu0gW"

    /// A multipart body: `fields` in order, then (or before them, `fileFirst`) the file part.
    struct Upload {
        var fields: [(String, String)]
        var filename = "scan.pdf"
        var fileContentType = "application/pdf"
        var fileBytes: Int
        var fileFirst = false

        func fieldPart(_ name: String, _ value: String) -> [UInt8] {
            Array("--\(NativeDocumentTests.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }

        var fileHead: [UInt8] {
            Array(("--\(NativeDocumentTests.boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(filename)\"\r\n"
                + "Content-Type: \(fileContentType)\r\n\r\n").utf8)
        }

        var fieldBytes: [UInt8] { fields.flatMap { fieldPart($0.0, $0.1) } }
        var close: [UInt8] { Array("\r\n--\(NativeDocumentTests.boundary)--\r\n".utf8) }

        var length: Int {
            fieldBytes.count + fileHead.count + fileBytes + close.count
        }

        /// A 1 MiB pattern, made once (debug builds are slow at generating bytes one by one).
        static let pattern: [UInt8] = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

        /// The file's content: the pattern with each MiB stamped with its index, so no two MiB are
        /// equal and the digest catches a reordered or repeated piece.
        static func chunk(at offset: Int, count: Int) -> [UInt8] {
            var bytes = Array(pattern[0..<count])
            unsafe withUnsafeBytes(of: UInt64(offset).littleEndian) { stamp in
                for index in 0..<min(8, count) { bytes[index] = unsafe stamp[index] }
            }
            return bytes
        }

        /// Sends the request on `client` in pieces (never the whole file in memory at once).
        func send(on client: RawHTTPClient, port: Int, token: String) throws -> [UInt8] {
            var head = "POST /api/documents HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n"
            head += "Content-Type: multipart/form-data; boundary=\(NativeDocumentTests.boundary)\r\nContent-Length: \(length)\r\n\r\n"
            try client.send(Array(head.utf8))
            if !fileFirst { try client.send(fieldBytes) }
            try client.send(fileHead)
            var digestInput = [UInt8]()
            var offset = 0
            let piece = 1 << 20
            var hashed = true
            while offset < fileBytes {
                let bytes = Self.chunk(at: offset, count: min(piece, fileBytes - offset))
                if fileBytes <= 32 << 20 { digestInput += bytes } else { hashed = false }
                try client.send(bytes)
                offset += bytes.count
            }
            // The file part's content ends where the close delimiter's CRLF begins.
            if fileFirst {
                try client.send(Array("\r\n".utf8))
                try client.send(Array(fieldBytes.dropLast(2)))
                try client.send(Array("\r\n--\(NativeDocumentTests.boundary)--\r\n".utf8))
            } else {
                try client.send(close)
            }
            return hashed ? SHA256.hash(digestInput) : []
        }
    }

    static func documents(_ fixture: NativeRoutesFixture) async throws -> [[String: Any]] {
        try await fixture.recorded("documents")
    }

    @Test("a 20 MB upload arrives intact at the upstream (hash compared), filename sanitised, reference answered")
    func largeUploadIntact() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let port = fixture.port
        let token = try NativeRoutesFixture.token()
        let upload = Upload(
            fields: [("device_id", "d1"), ("kind", "scan"), ("upload_id", "u-1"), ("context", #"{"step":2}"#), ("user_email", "")],
            filename: "C:\\temp\\..\\scan.pdf", fileBytes: 20_000_000
        )
        let (response, digest) = try await blocking { () -> (RawHTTPClient.Response, [UInt8]) in
            let client = try RawHTTPClient(port: port, timeout: .seconds(60))
            let digest = try upload.send(on: client, port: port, token: token)
            return (try client.readResponse(to: "POST"), digest)
        }
        #expect(response.status == 200, "\(response.bodyText)")
        #expect(response.bodyText == #"{"ok":true,"id":"doc-1"}"#)
        let stored = try #require(try await Self.documents(fixture).first)
        #expect(stored["size"] as? Int == 20_000_000)
        #expect(stored["sha256"] as? String == Hex.string(digest))
        #expect(stored["filename"] as? String == "scan.pdf")
        #expect(stored["content_type"] as? String == "application/pdf")
        let fields = try #require(stored["fields"] as? [String: String])
        #expect(fields["device_id"] == "d1" && fields["kind"] == "scan" && fields["upload_id"] == "u-1")
        #expect(fields["context"] == #"{"step":2}"#)
        #expect(fields["user_email"] == nil, "an empty user_email is absent")
    }

    @Test("the file before device_id: held (bounded by the limit), then forwarded")
    func fileBeforeFields() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let port = fixture.port
        let token = try NativeRoutesFixture.token()
        let upload = Upload(fields: [("device_id", "d2")], filename: "../../etc/passwd", fileBytes: 300_000, fileFirst: true)
        let (response, digest) = try await blocking { () -> (RawHTTPClient.Response, [UInt8]) in
            let client = try RawHTTPClient(port: port)
            let digest = try upload.send(on: client, port: port, token: token)
            return (try client.readResponse(to: "POST"), digest)
        }
        #expect(response.status == 200, "\(response.bodyText)")
        let stored = try #require(try await Self.documents(fixture).first)
        #expect(stored["filename"] as? String == "passwd")
        #expect(stored["sha256"] as? String == Hex.string(digest))
    }

    /// A raw multipart request with the dev token.
    static func post(_ fixture: NativeRoutesFixture, body: String, contentType: String) async throws -> RawHTTPClient.Response {
        let port = fixture.port
        let headers = ["Authorization": "Bearer " + (try NativeRoutesFixture.token()), "Content-Type": contentType]
        return try await blocking {
            try RawHTTPClient.request(port: port, method: "POST", "/api/documents", headers: headers, body: Array(body.utf8))
        }
    }

    static func part(_ disposition: String, _ value: String) -> String {
        "--\(boundary)\r\nContent-Disposition: \(disposition)\r\n\r\n\(value)\r\n"
    }

    static var close: String { "--\(boundary)--\r\n" }

    @Test("framing answered as the reference answers it: a preamble, a broken delimiter, a part without a name are 400, a missing boundary 400, a truncated file 422, CR LF before the first delimiter accepted; a refused upload never reaches the upstream")
    func framingAsTheReference() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        // The same table NativeRoutes is tested with (DocumentRouteTests): one upload check serves both.
        let cases = DocumentUploadFramingCase.all(boundary: Self.boundary)
        for framing in cases {
            let response = try await Self.post(fixture, body: framing.body, contentType: framing.contentType)
            #expect(response.status == framing.status, "\(framing): \(response.bodyText)")
            #expect(response.bodyText.contains(framing.answerFragment), "\(framing): \(response.bodyText)")
        }
        #expect(try await Self.documents(fixture).count == cases.filter { $0.status == 200 }.count)
    }

    @Test("parts as the reference reads them: the last of a repeated field, filename before filename*, x/. sanitised to x, a quote in a filename kept, a loose disposition accepted")
    func partsAsTheReference() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let type = "multipart/form-data; boundary=\(Self.boundary)"
        let cases: [(String, String, String)] = [
            ("repeated device_id", Self.part(#"form-data; name="device_id""#, "first") + Self.part(#"form-data; name="device_id""#, "second")
                + Self.part(#"form-data; name="file"; filename="a.pdf""#, "%PDF"), "a.pdf"),
            ("filename and filename*", Self.part(#"form-data; name="device_id""#, "second")
                + Self.part(#"form-data; name="file"; filename*=UTF-8''star.pdf; filename="plain.pdf""#, "%PDF"), "plain.pdf"),
            ("x/.", Self.part(#"form-data; name="device_id""#, "second") + Self.part(#"form-data; name="file"; filename="x/.""#, "%PDF"), "x"),
            ("escaped quote", Self.part(#"form-data; name="device_id""#, "second")
                + Self.part(#"form-data; name="file"; filename="a\"b.pdf""#, "%PDF"), #"a"b.pdf"#),
            ("attachment, tab, repeated filename", Self.part(#"form-data; name="device_id""#, "second")
                + Self.part("attachment; name=\"file\"; filename=\"a.pdf\"; filename=\"t\tb.pdf\"", "%PDF"), "t\tb.pdf"),
        ]
        for (index, (name, body, filename)) in cases.enumerated() {
            let response = try await Self.post(fixture, body: body + Self.close, contentType: type)
            #expect(response.status == 200, "\(name): \(response.bodyText)")
            let documents = try await Self.documents(fixture)
            try #require(documents.count == index + 1, "\(name)")
            let document = documents[index]
            #expect(document["filename"] as? String == filename, "\(name)")
            #expect((document["fields"] as? [String: Any])?["device_id"] as? String == "second", "\(name)")
        }
    }

    @Test("an upload of 64 parts is forwarded, one of 65 is 413: the one parts limit of both servers of the routes (docs/migration.md)")
    func partsLimit() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let type = "multipart/form-data; boundary=\(Self.boundary)"
        func upload(parts: Int) -> String {
            // device_id and the file, the rest repeated `kind` fields (the last one is read).
            Self.part(#"form-data; name="device_id""#, "d1")
                + String(repeating: Self.part(#"form-data; name="kind""#, "scan"), count: parts - 2)
                + Self.part(#"form-data; name="file"; filename="a.pdf""#, "%PDF") + Self.close
        }
        let accepted = try await Self.post(fixture, body: upload(parts: 64), contentType: type)
        #expect(accepted.status == 200, "\(accepted.bodyText)")
        let refused = try await Self.post(fixture, body: upload(parts: 65), contentType: type)
        #expect(refused.status == 413, "\(refused.bodyText)")
        #expect(refused.bodyText == #"{"detail":"Document too large"}"#)
        #expect(try await Self.documents(fixture).count == 1)
    }

    @Test("refusals: missing device_id or file 422, bad context 422 with the contract's detail, not multipart 422; nothing reaches the upstream")
    func refusals() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let port = fixture.port
        let token = try NativeRoutesFixture.token()
        let cases: [(String, Upload, Int, String)] = [
            ("empty device_id", Upload(fields: [("device_id", "")], fileBytes: 10), 422, "device_id"),
            ("no device_id", Upload(fields: [("kind", "scan")], fileBytes: 10), 422, "device_id"),
            ("context is a list", Upload(fields: [("device_id", "d"), ("context", "[1]")], fileBytes: 10), 422, "`context` must be a JSON object"),
            ("context is broken JSON", Upload(fields: [("device_id", "d"), ("context", "{")], fileBytes: 10), 422, "`context` must be a JSON object"),
            ("context is null", Upload(fields: [("device_id", "d"), ("context", "null")], fileBytes: 10), 422, "`context` must be a JSON object"),
        ]
        for (name, upload, status, detail) in cases {
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                _ = try upload.send(on: client, port: port, token: token)
                return try client.readResponse(to: "POST")
            }
            #expect(response.status == status, "\(name): \(response.bodyText)")
            #expect(response.bodyText.contains(detail), "\(name): \(response.bodyText)")
        }
        let notMultipart = try await fixture.call("POST", "/api/documents", json: #"{"device_id":"d"}"#)
        #expect(notMultipart.status == 422)
        #expect(notMultipart.bodyText.contains(#""loc":["body","file"]"#))
        #expect(try await Self.documents(fixture).isEmpty)
    }

    @Test("a 100 MB upload is refused with 413 once past DOCUMENT_MAX_BYTES, the gateway's memory stays bounded")
    func oversizedUpload() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let port = fixture.port
        let token = try NativeRoutesFixture.token()
        let upload = Upload(fields: [("device_id", "d3")], fileBytes: 100 * 1024 * 1024)
        let response = try await blocking {
            let client = try RawHTTPClient(port: port, timeout: .seconds(60))
            _ = try upload.send(on: client, port: port, token: token)
            return try client.readResponse(to: "POST")
        }
        #expect(response.status == 413)
        #expect(response.bodyText == #"{"detail":"Document too large"}"#)
        let peakKiB = ChildProcessProbe(pid: fixture.gateway.pid).peakResidentKiB
        print("100 MB upload refused: gateway VmHWM \(peakKiB) KiB")
        #expect(peakKiB > 0 && peakKiB < 100 * 1024, "gateway VmHWM \(peakKiB) KiB")
        #expect(try await Self.documents(fixture).isEmpty, "the upstream never completed an upload")
    }

    @Test("exactly DOCUMENT_MAX_BYTES is accepted, one more byte is 413; a bad context before the file is judged first")
    func limitBoundary() async throws {
        let fixture = try await NativeRoutesFixture.start(["DOCUMENT_MAX_BYTES": "4096"])
        defer { fixture.stop() }
        let port = fixture.port
        let token = try NativeRoutesFixture.token()
        for (size, status) in [(4096, 200), (4097, 413)] {
            let upload = Upload(fields: [("device_id", "d4")], fileBytes: size)
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                _ = try upload.send(on: client, port: port, token: token)
                return try client.readResponse(to: "POST")
            }
            #expect(response.status == status, "\(size) bytes: \(response.bodyText)")
        }
        // A bad `context` before the file is judged before the size; after an oversized file it is
        // never reached: 413 as the file passes the cap (docs/migration.md; NativeRoutes alike).
        for (fileFirst, status) in [(false, 422), (true, 413)] {
            let upload = Upload(fields: [("device_id", "d4"), ("context", "[1]")], fileBytes: 4097, fileFirst: fileFirst)
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                _ = try upload.send(on: client, port: port, token: token)
                return try client.readResponse(to: "POST")
            }
            #expect(response.status == status, "file first: \(fileFirst): \(response.bodyText)")
        }
    }
}
