import AppNativeCore
import AppNativeHTTP
import AppNativeJSON
import AppNativeModels
import AppNativeRoutes
import AppNativeTesting
import Testing

/// A request body for the framework-agnostic entry: the given chunks, then the end (or `failure`),
/// recording whether anyone started reading it.
struct ChunkedBody: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let chunks: [[UInt8]]
    var failure: (any Error)?
    let reads = Locked(0)

    init(_ chunks: [[UInt8]], failure: (any Error)? = nil) {
        self.chunks = chunks
        self.failure = failure
    }

    /// `bytes` in pieces of `size` bytes (every split reaches the same answer).
    init(_ bytes: [UInt8], pieceSize size: Int) {
        self.init(stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<Swift.min($0 + size, bytes.count)]) })
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: ChunkedBody
        var index = 0

        mutating func next() async throws -> [UInt8]? {
            body.reads.withLock { $0 += 1 }
            guard index < body.chunks.count else {
                if let failure = body.failure { throw failure }
                return nil
            }
            index += 1
            return body.chunks[index - 1]
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
    var wasRead: Bool { reads.withLock { $0 } > 0 }
}

/// Drives `NativeRoutes.respond(to:)` directly, as a Vapor or Hummingbird adapter does.
func respond(
    _ routes: NativeRoutes<String>, _ method: String, _ target: String,
    fields: [(name: String, value: String)] = [(name: "Authorization", value: "Bearer good")],
    body: ChunkedBody = ChunkedBody([])
) async throws -> CompleteResponse {
    try await routes.respond(to: NativeRouteRequest(method: method, target: target, fields: fields, body: body))
}

func jsonFields(_ extra: [(name: String, value: String)] = [(name: "Authorization", value: "Bearer good")]) -> [(name: String, value: String)] {
    extra + [(name: "Content-Type", value: "application/json")]
}

extension CompleteResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}

func entryRoutes(
    _ callbacks: NativeRouteCallbacks<String>, authentication: NativeAuthentication<String> = testAuthentication,
    limits: NativeRouteLimits = NativeRouteLimits(), logger: Logger = .disabled
) -> NativeRoutes<String> {
    NativeRoutes(authentication: authentication, callbacks: callbacks, limits: limits, logger: logger)
}

/// Every route through the framework-agnostic entry (contract/routes.md §1, §3).
@Suite struct EntryRouteTests {
    @Test func devices() async throws {
        let recorder = Recorder()
        let body = Array(#"{"device_id":"d1","push_token":"abc","user_email":null}"#.utf8)
        for size in [1, 7, body.count] {
            let response = try await respond(
                entryRoutes(recordingCallbacks(recorder)), "POST", "/api/devices", fields: jsonFields(), body: ChunkedBody(body, pieceSize: size))
            #expect(response.status == 200, "pieces of \(size)")
            #expect(response.text == #"{"ok":true}"#)
            #expect(response.headers.first("Content-Type") == "application/json")
            #expect(!response.headers.contains("Content-Length"))
        }
        let call = try #require(recorder.last)
        #expect(call.route == "devices")
        #expect(call.user == "alice")
        #expect(call.deviceID == "d1")
        let registration = try #require(call.body as? DeviceRegistration)
        #expect(registration.pushToken == .set("abc"))
        #expect(registration.userEmail == .cleared)
        #expect(registration.platform == .absent)
        #expect(recorder.calls.count == 3)
    }

    @Test(arguments: [
        ("/api/locations", #"{"device_id":"d1","latitude":47.5,"longitude":-180}"#, "locations", 200, #"{"ok":true}"#),
        ("/api/notification-actions", #"{"device_id":"d1","action":"acknowledge","data":{"order":7}}"#, "notification-actions", 200, #"{"ok":true}"#),
        ("/api/widget-actions", #"{"device_id":"d1","widget_id":"w1","action_id":"done"}"#, "widget-actions", 200, #"{"ok":true}"#),
        ("/api/widget-options", #"{"device_id":"d1","widget_id":"w1","field_id":"f","query":"al"}"#, "widget-options", 200, #"{"options":[]}"#),
        ("/api/approval-decisions", #"{"device_id":"d1","approval_id":"a1","decision":"approve"}"#, "approval-decisions", 200, #"{"ok":true}"#),
        ("/api/live-activities", #"{"device_id":"d1","event":"ended"}"#, "live-activities", 204, ""),
    ])
    func jsonRoute(target: String, json: String, route: String, status: Int, answer: String) async throws {
        let recorder = Recorder()
        let response = try await respond(
            entryRoutes(recordingCallbacks(recorder)), "POST", target, fields: jsonFields(), body: ChunkedBody([Array(json.utf8)]))
        #expect(response.status == status)
        #expect(response.text == answer)
        #expect(recorder.last?.route == route)
        #expect(recorder.last?.deviceID == "d1")
        #expect(recorder.last?.user == "alice")
    }

    @Test func resultsAreResponseEncoded() async throws {
        let result = WidgetActionResult(message: "Done", style: .success, openPath: "/orders")
        let refusal = ApprovalDecisionResult(ok: false, message: "Too late", approvals: [])
        let routes = entryRoutes(recordingCallbacks(Recorder(), widgetAction: result, approvalDecision: refusal))
        let action = try await respond(
            routes, "POST", "/api/widget-actions", fields: jsonFields(),
            body: ChunkedBody([Array(#"{"device_id":"d1","widget_id":"w1","action_id":"done"}"#.utf8)]))
        #expect(action.text == #"{"ok":true,"message":"Done","style":"success","openPath":"/orders"}"#)
        let decision = try await respond(
            routes, "POST", "/api/approval-decisions", fields: jsonFields(),
            body: ChunkedBody([Array(#"{"device_id":"d1","approval_id":"a1","decision":"reject"}"#.utf8)]))
        #expect(decision.text == #"{"ok":false,"message":"Too late","approvals":[]}"#)
    }

    @Test func feeds() async throws {
        let recorder = Recorder()
        let widget = try Widget(json: json(#"{"id":"w1","kind":"kpi","data":{"value":12}}"#))
        let routes = entryRoutes(recordingCallbacks(recorder, widgets: [widget]))
        let widgets = try await respond(routes, "GET", "/api/widgets?device_id=d%201+x")
        #expect(widgets.status == 200)
        #expect(widgets.text == String(decoding: JSONSerializer.serialize(WidgetFeed(widgets: [widget]).jsonValue(.response)), as: UTF8.self))
        #expect(recorder.last?.deviceID == "d 1 x")
        let approvals = try await respond(routes, "GET", "/api/approvals")
        #expect(approvals.status == 200)
        #expect(approvals.text == #"{"approvals":[]}"#)
        #expect(recorder.last?.deviceID == nil)
        // HEAD gets the GET answer; the server sends only its head.
        let head = try await respond(routes, "HEAD", "/api/approvals")
        #expect(head.status == 200)
        #expect(head.text == #"{"approvals":[]}"#)
    }

    @Test func document() async throws {
        let recorder = Recorder()
        let content: [UInt8] = (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let body = MultipartBody.upload(
            deviceID: "d1", filename: "C:\\temp\\scan.jpg", contentType: "image/jpeg", content: content,
            fields: [("upload_id", "u-1"), ("context", #"{"step":2}"#)])
        for size in [1, 100, body.count] {
            let response = try await respond(
                entryRoutes(recordingCallbacks(recorder, documentReference: "ref-1")), "POST", "/api/documents",
                fields: multipartFields(), body: ChunkedBody(body, pieceSize: size))
            #expect(response.status == 200, "pieces of \(size)")
            #expect(response.text == #"{"ok":true,"id":"ref-1"}"#)
        }
        let upload = try #require(recorder.last?.body as? DocumentUpload)
        #expect(upload.content == content)
        #expect(upload.filename == "scan.jpg")
        #expect(upload.metadata.uploadID == "u-1")
        #expect(upload.metadata.context?["step"] == 2)
        #expect(recorder.last?.user == "alice")
    }
}

func multipartFields(authorized: Bool = true) -> [(name: String, value: String)] {
    (authorized ? [(name: "Authorization", value: "Bearer good")] : [])
        + [(name: "Content-Type", value: "multipart/form-data; boundary=\(MultipartBody.boundary)")]
}

/// The entry's refusals: the same shapes and limits as the HTTPServer path (contract/routes.md §0–§2).
@Suite struct EntryRefusalTests {
    @Test func authenticationRunsBeforeTheBodyIsRead() async throws {
        let recorder = Recorder()
        let body = ChunkedBody([Array(#"{"device_id":123}"#.utf8)])
        let response = try await respond(entryRoutes(recordingCallbacks(recorder)), "POST", "/api/devices", fields: [], body: body)
        #expect(response.status == 401)
        #expect(response.text == #"{"detail":"Not authenticated"}"#)
        #expect(response.headers.first("WWW-Authenticate") == "Bearer")
        #expect(!body.wasRead)
        #expect(recorder.calls.isEmpty)
    }

    @Test func rejectionIsSentAsTheHookBuiltIt() async throws {
        let authentication = NativeAuthentication<String>.hook { _ in
            .rejected(NativeAuthRejection(status: 503, detail: "Sign-in is temporarily unavailable", headers: ["Retry-After": "30"]))
        }
        let response = try await respond(entryRoutes(recordingCallbacks(Recorder()), authentication: authentication), "GET", "/api/approvals")
        #expect(response.status == 503)
        #expect(response.headers.first("Retry-After") == "30")
        #expect(response.text == #"{"detail":"Sign-in is temporarily unavailable"}"#)
    }

    @Test func insecureOptOutGivesNoUser() async throws {
        let recorder = Recorder()
        let response = try await respond(
            entryRoutes(recordingCallbacks(recorder), authentication: .insecureNoAuthentication), "POST", "/api/devices",
            fields: [], body: ChunkedBody([Array(#"{"device_id":"d1"}"#.utf8)]))
        #expect(response.status == 200)
        #expect(recorder.last?.user == nil)
    }

    @Test func notFoundAndMethodNotAllowed() async throws {
        var callbacks = NativeRouteCallbacks<String>()
        callbacks.registerDevice = { _, _ in }
        let routes = entryRoutes(callbacks)
        for target in ["/api/nope", "/api/widgets", "/api", "/api/devices/", "/elsewhere", "/apidevices"] {
            let response = try await respond(routes, "GET", target)
            #expect(response.status == 404, "\(target)")
            #expect(response.text == #"{"detail":"Not Found"}"#, "\(target)")
        }
        let wrong = try await respond(routes, "GET", "/api/devices")
        #expect(wrong.status == 405)
        #expect(wrong.headers.first("Allow") == "POST")
        #expect(wrong.text == #"{"detail":"Method Not Allowed"}"#)
        #expect(routes.handles(target: "/api/devices?x=1"))
        #expect(routes.handles(target: "/api/anything"))
        #expect(!routes.handles(target: "/apidevices"))
        #expect(!routes.handles(target: "/api"))
        #expect(!routes.handles(target: "/other"))
    }

    @Test func jsonBodyCapDeclaredAndStreamed() async throws {
        let recorder = Recorder()
        let routes = entryRoutes(recordingCallbacks(recorder), limits: NativeRouteLimits(maxJSONBodyBytes: 40))
        let exact = Array(#"{"device_id":"d1","user_email":"a@b.ch"}"#.utf8)
        #expect(exact.count == 40)
        #expect(try await respond(routes, "POST", "/api/devices", fields: jsonFields(), body: ChunkedBody(exact, pieceSize: 3)).status == 200)
        let over = Array(#"{"device_id":"d1","user_email":"ab@b.ch"}"#.utf8)
        let streamed = try await respond(routes, "POST", "/api/devices", fields: jsonFields(), body: ChunkedBody(over, pieceSize: 3))
        #expect(streamed.status == 413)
        #expect(streamed.text == #"{"detail":"Request body too large"}"#)
        // A declared length past the cap is refused before a byte is read.
        let declared = ChunkedBody([over])
        let early = try await respond(
            routes, "POST", "/api/devices", fields: jsonFields() + [(name: "Content-Length", value: "41")], body: declared)
        #expect(early.status == 413)
        #expect(!declared.wasRead)
        #expect(recorder.calls.count == 1)
    }

    @Test func validationReportsEveryError() async throws {
        let recorder = Recorder()
        let routes = entryRoutes(recordingCallbacks(recorder))
        let response = try await respond(
            routes, "POST", "/api/devices", fields: jsonFields(), body: ChunkedBody([Array(#"{"device_id":123,"platform":"android"}"#.utf8)]))
        #expect(response.status == 422)
        let detail = try #require(try json(response.text).objectValue?["detail"]?.arrayValue)
        let locations = detail.compactMap { $0.objectValue?["loc"] }
        #expect(locations.contains(["body", "device_id"]))
        #expect(locations.contains(["body", "platform"]))
        #expect(try await respond(routes, "POST", "/api/widget-actions", fields: jsonFields(), body: ChunkedBody([[0x7B]])).status == 422)
        #expect(try await respond(routes, "POST", "/api/live-activities").status == 422)
        #expect(recorder.calls.isEmpty)
    }

    @Test func documentRefusals() async throws {
        let recorder = Recorder()
        let routes = entryRoutes(recordingCallbacks(recorder), limits: NativeRouteLimits(maxDocumentBytes: 10))
        // Content-Type rule: a body that is not multipart/form-data lacks both required parts.
        let notMultipart = try await respond(
            routes, "POST", "/api/documents", fields: jsonFields(), body: ChunkedBody([Array(#"{"device_id":"d1"}"#.utf8)]))
        #expect(notMultipart.status == 422)
        #expect(try locations(notMultipart.text) == [["body", "file"], ["body", "device_id"]])
        let empty = try await respond(routes, "POST", "/api/documents", fields: multipartFields())
        #expect(empty.status == 422)
        #expect(try locations(empty.text) == [["body", "file"], ["body", "device_id"]])
        let noDevice = try await respond(
            routes, "POST", "/api/documents", fields: multipartFields(), body: ChunkedBody([MultipartBody.upload(deviceID: nil, content: [1])]))
        #expect(try locations(noDevice.text) == [["body", "device_id"]])
        let badContext = try await respond(
            routes, "POST", "/api/documents", fields: multipartFields(),
            body: ChunkedBody([MultipartBody.upload(content: [1], fields: [("context", "[1]")])]))
        #expect(badContext.status == 422)
        #expect(badContext.text == #"{"detail":"`context` must be a JSON object"}"#)
        let exact = try await respond(
            routes, "POST", "/api/documents", fields: multipartFields(),
            body: ChunkedBody(MultipartBody.upload(content: [UInt8](repeating: 0x41, count: 10)), pieceSize: 4))
        #expect(exact.status == 200)
        let tooLarge = try await respond(
            routes, "POST", "/api/documents", fields: multipartFields(),
            body: ChunkedBody(MultipartBody.upload(content: [UInt8](repeating: 0x41, count: 11)), pieceSize: 4))
        #expect(tooLarge.status == 413)
        #expect(tooLarge.text == #"{"detail":"Document too large"}"#)
        var truncated = MultipartBody()
        truncated.field("device_id", "d1")
        // A body cut short counts the parts that ended (the reference's reading): `device_id` never
        // met the delimiter that ends it, so both required parts are missing.
        let cutShort = try await respond(routes, "POST", "/api/documents", fields: multipartFields(), body: ChunkedBody([truncated.bytes]))
        #expect(cutShort.status == 422)
        #expect(try locations(cutShort.text) == [["body", "file"], ["body", "device_id"]])
        #expect(recorder.calls.count == 1)
    }

    @Test func callbackErrors() async throws {
        struct StoreDown: Error, CustomStringConvertible {
            var description: String { "database password=hunter2 refused" }
        }
        var callbacks = NativeRouteCallbacks<String>()
        callbacks.registerDevice = { _, _ in throw NativeHTTPError(status: 409, detail: "already registered", headers: ["X-Reason": "dup"]) }
        callbacks.serveApprovals { _ in throw NativeHTTPError(status: 403, detail: ["message": "no", "ids": ["a1"]]) }
        callbacks.widgetAction = { _, _ in throw StoreDown() }
        let sink = InMemoryLogSink()
        let routes = entryRoutes(callbacks, logger: Logger(sink: sink))
        let conflict = try await respond(routes, "POST", "/api/devices", fields: jsonFields(), body: ChunkedBody([Array(#"{"device_id":"d1"}"#.utf8)]))
        #expect(conflict.status == 409)
        #expect(conflict.text == #"{"detail":"already registered"}"#)
        #expect(conflict.headers.first("X-Reason") == "dup")
        let object = try await respond(routes, "GET", "/api/approvals")
        #expect(object.text == #"{"detail":{"message":"no","ids":["a1"]}}"#)
        let failure = try await respond(
            routes, "POST", "/api/widget-actions", fields: jsonFields(), body: ChunkedBody([Array(#"{"device_id":"d1","widget_id":"w","action_id":"a"}"#.utf8)]))
        #expect(failure.status == 500)
        #expect(failure.text == #"{"detail":"Internal Server Error"}"#)
        #expect(sink.all.last?.metadata["native.route"] == "widget-actions")
    }

    @Test func invalidFieldNameIs400() async throws {
        let recorder = Recorder()
        let response = try await respond(
            entryRoutes(recordingCallbacks(recorder)), "GET", "/api/approvals",
            fields: [(name: "Authorization", value: "Bearer good"), (name: "Bad Name", value: "x")])
        #expect(response.status == 400)
        #expect(recorder.calls.isEmpty)
    }

    @Test func aFailingBodyIsThrown() async throws {
        struct Disconnected: Error {}
        let recorder = Recorder()
        await #expect(throws: Disconnected.self) {
            _ = try await respond(
                entryRoutes(recordingCallbacks(recorder)), "POST", "/api/devices", fields: jsonFields(),
                body: ChunkedBody([Array(#"{"device_id""#.utf8)], failure: Disconnected()))
        }
        #expect(recorder.calls.isEmpty)
    }

    private func locations(_ body: String) throws -> [JSONValue] {
        try #require(try json(body).objectValue?["detail"]?.arrayValue).compactMap { $0.objectValue?["loc"] }
    }
}
