import AppNativeJSON
import AppNativeModels
import AppNativeRoutes
import AppNativeTesting
import Testing

/// `POST {p}/documents` (contract/routes.md §2.8).
@Suite struct DocumentRouteTests {
    /// Every row of the "reference returned by the callback → response" table.
    @Test(arguments: [
        (nil, #"{"ok":true}"#),
        ("s", #"{"ok":true,"id":"s"}"#),
        (42, #"{"ok":true,"id":42}"#),
        (0, #"{"ok":true,"id":0}"#),
        (-7, #"{"ok":true,"id":-7}"#),
        (true, #"{"ok":true}"#),
        (false, #"{"ok":true}"#),
        ("", #"{"ok":true}"#),
        (["id": "x"], #"{"ok":true,"id":"x"}"#),
        (["id": 9, "other": "y"], #"{"ok":true,"id":9}"#),
        (["id": true], #"{"ok":true}"#),
        (["id": ""], #"{"ok":true}"#),
        (["name": "x"], #"{"ok":true}"#),
        (["id": ["id": "x"]], #"{"ok":true}"#),
        (1.5, #"{"ok":true}"#),
        (["a", "b"], #"{"ok":true}"#),
        (.null, #"{"ok":true}"#),
    ] as [(JSONValue?, String)])
    func referenceTable(reference: JSONValue?, expected: String) async throws {
        try await withRoutes(callbacks: recordingCallbacks(Recorder(), documentReference: reference)) { port in
            let response = try await postDocument(port, MultipartBody.upload())
            #expect(response.status == 200, "\(String(describing: reference))")
            #expect(response.bodyText == expected, "\(String(describing: reference))")
        }
    }

    @Test(arguments: ["[1]", #""x""#, "null", "42", "{broken", "[]", "true"])
    func contextMustBeAnObject(context: String) async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await postDocument(port, MultipartBody.upload(fields: [("context", context)]))
            #expect(response.status == 422, "\(context)")
            #expect(response.bodyText == #"{"detail":"`context` must be a JSON object"}"#, "\(context)")
            #expect(recorder.calls.isEmpty)
        }
    }

    @Test(arguments: ["", "   ", "\t\r\n "])
    func blankContextIsAbsent(context: String) async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await postDocument(port, MultipartBody.upload(fields: [("context", context)]))
            #expect(response.status == 200)
            let upload = try #require(recorder.last?.body as? DocumentUpload)
            #expect(upload.metadata.context == nil)
        }
    }

    @Test(arguments: [
        ("../../etc/passwd", "passwd"),
        ("C:\\temp\\scan.jpg", "scan.jpg"),
        ("..", "upload"),
        ("a/..", "upload"),
        ("", "upload"),
        (".", "upload"),
        ("dir/sub/", "sub"),
        ("plain.pdf", "plain.pdf"),
    ])
    func filenameIsSanitised(sent: String, received: String) async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await postDocument(port, MultipartBody.upload(filename: sent))
            #expect(response.status == 200, "\(sent)")
            let upload = try #require(recorder.last?.body as? DocumentUpload)
            #expect(upload.filename == received, "\(sent)")
        }
    }

    @Test func contentTypeDefaultsToOctetStream() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            _ = try await postDocument(port, MultipartBody.upload(contentType: nil))
            let upload = try #require(recorder.last?.body as? DocumentUpload)
            #expect(upload.contentType == "application/octet-stream")
        }
    }

    @Test func exactlyMaxBytesIsAcceptedOneMoreIs413() async throws {
        let recorder = Recorder()
        let limits = NativeRouteLimits(maxDocumentBytes: 100_000)
        try await withRoutes(callbacks: recordingCallbacks(recorder), limits: limits) { port in
            let exact = [UInt8](repeating: 0x41, count: 100_000)
            let accepted = try await postDocument(port, MultipartBody.upload(content: exact))
            #expect(accepted.status == 200)
            #expect((recorder.last?.body as? DocumentUpload)?.content == exact)
            let refused = try await postDocument(port, MultipartBody.upload(content: exact + [0x42]))
            #expect(refused.status == 413)
            #expect(refused.bodyText == #"{"detail":"Document too large"}"#)
            #expect(recorder.calls.count == 1)
        }
    }

    @Test func defaultMaxBytesIs25MiB() {
        #expect(NativeRouteLimits().maxDocumentBytes == 26_214_400)
    }

    /// A `context` before the file is judged before the size; the file is refused as soon as it
    /// passes the cap, so a `context` after an oversized file is never reached (docs/migration.md).
    @Test func contextBeforeTheFileIsCheckedBeforeSize() async throws {
        let limits = NativeRouteLimits(maxDocumentBytes: 10)
        try await withRoutes(callbacks: recordingCallbacks(Recorder()), limits: limits) { port in
            var before = MultipartBody()
            before.field("device_id", "d1")
            before.field("context", "[1]")
            before.file(filename: "big.bin", content: [UInt8](repeating: 1, count: 50))
            let refused = try await postDocument(port, before.finished())
            #expect(refused.status == 422)
            #expect(refused.bodyText == #"{"detail":"`context` must be a JSON object"}"#)
            var after = MultipartBody()
            after.field("device_id", "d1")
            after.file(filename: "big.bin", content: [UInt8](repeating: 1, count: 50))
            after.field("context", "[1]")
            let tooLarge = try await postDocument(port, after.finished())
            #expect(tooLarge.status == 413)
            #expect(tooLarge.bodyText == #"{"detail":"Document too large"}"#)
        }
    }

    @Test func missingFileOrDeviceIDIs422() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let noDevice = try await postDocument(port, MultipartBody.upload(deviceID: nil))
            #expect(noDevice.status == 422)
            #expect(try locations(noDevice.bodyText) == [["body", "device_id"]])
            let emptyDevice = try await postDocument(port, MultipartBody.upload(deviceID: ""))
            #expect(try locations(emptyDevice.bodyText) == [["body", "device_id"]])
            var textOnly = MultipartBody()
            textOnly.field("device_id", "d1")
            textOnly.field("file", "not a file part")
            let noFile = try await postDocument(port, textOnly.finished())
            #expect(noFile.status == 422)
            #expect(try locations(noFile.bodyText) == [["body", "file"]])
            let notMultipart = try await post(port, "/api/documents", json: #"{"device_id":"d1"}"#)
            #expect(notMultipart.status == 422)
            #expect(try locations(notMultipart.bodyText) == [["body", "file"], ["body", "device_id"]])
            #expect(recorder.calls.isEmpty)
        }
    }

    /// The one parts limit of both servers of the routes (docs/migration.md).
    @Test func sixtyFourPartsPassAndOneMoreIs413() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let kinds = { (count: Int) in [(String, String)](repeating: ("kind", "scan"), count: count) }
            let accepted = try await postDocument(port, MultipartBody.upload(fields: kinds(62)))
            #expect(accepted.status == 200, "\(accepted.bodyText)")
            let refused = try await postDocument(port, MultipartBody.upload(fields: kinds(63)))
            #expect(refused.status == 413, "\(refused.bodyText)")
            #expect(recorder.calls.count == 1)
        }
    }

    /// The framing cases the gateway is tested with (NativeDocumentTests), answered the same by
    /// ``NativeRoutes``: both read the upload through `DocumentUploadCheck`.
    @Test(arguments: DocumentUploadFramingCase.all(boundary: MultipartBody.boundary))
    func framingAsTheReference(_ framing: DocumentUploadFramingCase) async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            var headers = authorized
            headers["Content-Type"] = framing.contentType
            let response = try await send(port, "POST", "/api/documents", headers: headers, body: Array(framing.body.utf8))
            #expect(response.status == framing.status, "\(response.bodyText)")
            #expect(response.bodyText.contains(framing.answerFragment), "\(response.bodyText)")
            #expect(recorder.calls.count == (framing.status == 200 ? 1 : 0))
        }
    }

    private func locations(_ body: String) throws -> [JSONValue] {
        try #require(try json(body).objectValue?["detail"]?.arrayValue).compactMap { $0.objectValue?["loc"] }
    }
}

/// The HTTPServer adapter's body bridge: an upload far past its pause threshold arrives whole.
@Suite struct ExchangeBodyBridgeTests {
    @Test func largeUploadArrivesIntact() async throws {
        let recorder = Recorder()
        let content: [UInt8] = (0..<(6 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        try await withRoutes(callbacks: recordingCallbacks(recorder), limits: NativeRouteLimits(maxDocumentBytes: 8 << 20)) { port in
            let response = try await postDocument(port, MultipartBody.upload(content: content))
            #expect(response.status == 200)
            let upload = try #require(recorder.last?.body as? DocumentUpload)
            #expect(upload.content.count == content.count)
            #expect(upload.content == content)
        }
    }

    @Test func bodyPastTheCapIs413AndTheServerServesOn() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder), limits: NativeRouteLimits(maxJSONBodyBytes: 1 << 20)) { port in
            let padding = String(repeating: " ", count: 3 << 20)
            let response = try await post(port, "/api/devices", json: #"{"device_id":"d1"}"# + padding)
            #expect(response.status == 413)
            #expect(try await post(port, "/api/devices", json: #"{"device_id":"d2"}"#).status == 200)
            #expect(recorder.calls.count == 1)
        }
    }
}
