import AppNativeHTTP
import AppNativeModels
import AppNativeTesting
import Foundation
import Testing

/// Bodies written by an encoder nobody here wrote: Python's standard-library `email` generator
/// (quoted boundary with `=`, RFC 2231 `filename*=utf-8''…`, Content-Transfer-Encoding 8bit and
/// binary, binary content). `MultipartParser` must read the same parts Python's own parser reads
/// back from the same bytes.
@Suite("Multipart interoperability (Python email)")
struct MultipartInteropTests {
    static let pythonWriter = """
        import email.generator, email.message, email.parser, email.policy, io, json
        policy = email.policy.HTTP
        form = email.message.EmailMessage(policy=policy)
        form.make_mixed()
        form.set_type("multipart/form-data")
        def add(name, data, filename=None, maintype="text", subtype="plain"):
            part = email.message.EmailMessage(policy=policy)
            if isinstance(data, bytes):
                part.set_content(data, maintype, subtype, cte="binary")
            else:
                part.set_content(data, subtype=subtype, cte="8bit")
            del part["MIME-Version"]
            params = {"name": name}
            if filename is not None:
                params["filename"] = filename
            part.add_header("Content-Disposition", "form-data", **params)
            form.attach(part)
        add("device_id", "dev-42")
        add("context", '{"a": "\\u00e9"}\\n')
        add("file", bytes(range(256)) + b"\\r\\n--x\\r\\n", filename="scan \\u00e9t\\u00e9.pdf", maintype="application", subtype="pdf")
        add("plain", b"\\x00\\xff", filename="../a.bin", maintype="application", subtype="octet-stream")
        out = io.BytesIO()
        email.generator.BytesGenerator(out, policy=policy).flatten(form)
        body = out.getvalue().split(b"\\r\\n\\r\\n", 1)[1]
        content_type = str(form["Content-Type"])
        reread = email.parser.BytesParser(policy=policy).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\\r\\n\\r\\n" + body)
        parts = [{"name": p.get_param("name", header="content-disposition"), "filename": p.get_filename(),
                  "contentType": str(p["Content-Type"]), "data": p.get_payload(decode=True).hex()}
                 for p in reread.iter_parts()]
        print(json.dumps({"contentType": content_type, "body": body.hex(), "parts": parts}))
        """

    @Test("a form written by Python's email generator parses to the parts Python reads back")
    func pythonWrittenForm() async throws {
        let output = try await ProcessRunner.run(ProcessRunner.python, ["-c", Self.pythonWriter])
        try #require(output.status == 0, "python: \(output.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let contentType = try #require(document["contentType"] as? String)
        let body = try #require((document["body"] as? String).flatMap(Hex.bytes))
        let expected = try #require(document["parts"] as? [[String: Any]])
        try #require(expected.count == 4)

        let boundary = try MultipartBoundary(contentType: contentType)
        let outcome = MultipartFeeder.everySplit(body, label: "python") { MultipartParser(boundary: boundary) }
        try #require(outcome.error == nil && outcome.isFinished, "\(outcome.summary)")
        try #require(outcome.parts.count == expected.count)
        for (index, (part, want)) in zip(outcome.parts, expected).enumerated() {
            #expect(part.head.name == want["name"] as? String)
            // Part 2 names its file only as `filename*`, which the reference ignores.
            #expect(part.head.preferredFilename == (index == 2 ? nil : want["filename"] as? String), "\(part.head.name)")
            #expect(part.head.contentType == want["contentType"] as? String, "\(part.head.name)")
            #expect(Hex.string(part.content) == want["data"] as? String, "\(part.head.name)")
        }
        // Python sent the non-ASCII filename as RFC 2231 `filename*` only: to python-multipart
        // (RFC 7578 §4.2) that part is a text field, and so it is here.
        #expect(outcome.parts[2].head.filename == nil && !outcome.parts[2].head.isFile)
        #expect(outcome.parts[3].head.preferredFilename.map(DocumentMetadata.sanitizedFilename) == "a.bin")
    }
}
