import AppNativeCore
import AppNativeHTTP
import AppNativeJSON
import AppNativeModels
import AppNativeRoutes
import AppNativeServer
import AppNativeTesting
import Foundation
import Testing

/// The ten routes' happy paths through a real server (contract/routes.md §1, §3).
@Suite struct HappyPathTests {
    @Test func deviceRegistrationKeepsAbsentApartFromNull() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await post(port, "/api/devices", json: #"{"device_id":"d1","push_token":"abc","user_email":null}"#)
            #expect(response.status == 200)
            #expect(response.bodyText == #"{"ok":true}"#)
            #expect(response.head.headers.first("Content-Type") == "application/json")
            let call = try #require(recorder.last)
            #expect(call.route == "devices")
            #expect(call.user == "alice")
            #expect(call.deviceID == "d1")
            let registration = try #require(call.body as? DeviceRegistration)
            #expect(registration.pushToken == .set("abc"))
            #expect(registration.userEmail == .cleared)
            #expect(registration.platform == .absent)
        }
    }

    @Test func location() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await post(port, "/api/locations", json: #"{"device_id":"d1","latitude":47.5,"longitude":-180}"#)
            #expect(response.status == 200)
            #expect(response.bodyText == #"{"ok":true}"#)
            let update = try #require(recorder.last?.body as? LocationUpdate)
            #expect(update.latitude.double == 47.5)
            #expect(update.longitude.double == -180)
            #expect(recorder.last?.deviceID == "d1")
        }
    }

    @Test func notificationAction() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await post(port, "/api/notification-actions", json: #"{"device_id":"d1","action":"acknowledge","data":{"order":7}}"#)
            #expect(response.status == 200)
            #expect(response.bodyText == #"{"ok":true}"#)
            let action = try #require(recorder.last?.body as? NotificationActionReceived)
            #expect(action.action == "acknowledge")
            #expect(action.data?["order"] == 7)
        }
    }

    @Test func widgetFeedTakesDeviceIDFromTheQuery() async throws {
        let recorder = Recorder()
        let widget = try Widget(json: json(#"{"id":"w1","kind":"kpi","data":{"value":12}}"#))
        try await withRoutes(callbacks: recordingCallbacks(recorder, widgets: [widget])) { port in
            let response = try await send(port, "GET", "/api/widgets?device_id=d%201+x")
            #expect(response.status == 200)
            #expect(response.bodyText == String(decoding: JSONSerializer.serialize(WidgetFeed(widgets: [widget]).jsonValue(.response)), as: UTF8.self))
            #expect(response.bodyText.hasPrefix(#"{"schema":1,"widgets":[{"id":"w1","#))
            #expect(recorder.last?.deviceID == "d 1 x")
            #expect(recorder.last?.user == "alice")
        }
    }

    @Test func emptyWidgetFeed() async throws {
        try await withRoutes(callbacks: recordingCallbacks(Recorder())) { port in
            let response = try await send(port, "GET", "/api/widgets")
            #expect(response.status == 200)
            #expect(response.bodyText == #"{"schema":1,"widgets":[]}"#)
        }
    }

    @Test func widgetActionNilIsOK() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await post(port, "/api/widget-actions", json: #"{"device_id":"d1","widget_id":"w1","action_id":"done","values":{"n":2}}"#)
            #expect(response.status == 200)
            #expect(response.bodyText == #"{"ok":true}"#)
            let request = try #require(recorder.last?.body as? WidgetActionReceived)
            #expect(request.widgetID == "w1")
            #expect(request.values["n"] == 2)
        }
    }

    @Test func widgetActionResultIsResponseEncoded() async throws {
        let result = WidgetActionResult(message: "Done", style: .success, openPath: "/orders")
        try await withRoutes(callbacks: recordingCallbacks(Recorder(), widgetAction: result)) { port in
            let response = try await post(port, "/api/widget-actions", json: #"{"device_id":"d1","widget_id":"w1","action_id":"done"}"#)
            #expect(response.status == 200)
            #expect(response.bodyText == #"{"ok":true,"message":"Done","style":"success","openPath":"/orders"}"#)
        }
    }

    @Test func widgetOptionsFromAList() async throws {
        let recorder = Recorder()
        let options = [ActionOption(value: "a", label: "Alpha"), ActionOption(value: "b")]
        try await withRoutes(callbacks: recordingCallbacks(recorder, options: options)) { port in
            let response = try await post(port, "/api/widget-options", json: #"{"device_id":"d1","widget_id":"w1","field_id":"f","query":"al"}"#)
            #expect(response.status == 200)
            #expect(response.bodyText == #"{"options":[{"value":"a","label":"Alpha"},{"value":"b"}]}"#)
            let request = try #require(recorder.last?.body as? WidgetOptionsRequest)
            #expect(request.query == "al")
        }
    }

    @Test func approvalFeedWithoutDeviceID() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await send(port, "GET", "/api/approvals")
            #expect(response.status == 200)
            #expect(response.bodyText == #"{"approvals":[]}"#)
            #expect(recorder.last?.route == "approvals")
            #expect(recorder.last?.deviceID == nil)
        }
    }

    @Test func approvalDecision() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await post(port, "/api/approval-decisions", json: #"{"device_id":"d1","approval_id":"a1","decision":"approve"}"#)
            #expect(response.status == 200)
            #expect(response.bodyText == #"{"ok":true}"#)
            let decision = try #require(recorder.last?.body as? ApprovalDecisionReceived)
            #expect(decision.approvalID == "a1")
        }
        let refusal = ApprovalDecisionResult(ok: false, message: "Too late", approvals: [])
        try await withRoutes(callbacks: recordingCallbacks(Recorder(), approvalDecision: refusal)) { port in
            let response = try await post(port, "/api/approval-decisions", json: #"{"device_id":"d1","approval_id":"a1","decision":"reject"}"#)
            #expect(response.bodyText == #"{"ok":false,"message":"Too late","approvals":[]}"#)
        }
    }

    @Test func liveActivityIs204WithoutABody() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await post(port, "/api/live-activities", json: #"{"device_id":"d1","event":"ended"}"#)
            #expect(response.status == 204)
            #expect(response.body.isEmpty)
            let token = try #require(recorder.last?.body as? LiveActivityTokenReceived)
            #expect(token.activityID == nil)
        }
    }

    @Test func document() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder, documentReference: "ref-1")) { port in
            let content: [UInt8] = (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) }
            let body = MultipartBody.upload(
                deviceID: "d1", filename: "C:\\temp\\scan.jpg", contentType: "image/jpeg", content: content,
                fields: [("user_email", ""), ("kind", "form"), ("upload_id", "u-1"), ("form_id", "f"), ("field_id", "photo"), ("context", #"{"step":2}"#)])
            let response = try await postDocument(port, body)
            #expect(response.status == 200)
            #expect(response.bodyText == #"{"ok":true,"id":"ref-1"}"#)
            let upload = try #require(recorder.last?.body as? DocumentUpload)
            #expect(upload.content == content)
            #expect(upload.filename == "scan.jpg")
            #expect(upload.contentType == "image/jpeg")
            #expect(upload.metadata.deviceID == "d1")
            #expect(upload.metadata.userEmail == nil)
            #expect(upload.metadata.kind == "form")
            #expect(upload.metadata.uploadID == "u-1")
            #expect(upload.metadata.formID == "f")
            #expect(upload.metadata.fieldID == "photo")
            #expect(upload.metadata.context?["step"] == 2)
            #expect(recorder.last?.deviceID == "d1")
            #expect(recorder.last?.user == "alice")
        }
    }
}

/// Authentication comes first and is mandatory (contract/routes.md header, §0).
@Suite struct AuthenticationTests {
    @Test func rejectedBeforeValidationAndWithoutCallingBack() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await post(port, "/api/devices", json: #"{"device_id":123}"#, headers: [:])
            #expect(response.status == 401)
            #expect(response.bodyText == #"{"detail":"Not authenticated"}"#)
            #expect(response.head.headers.first("WWW-Authenticate") == "Bearer")
            let feed = try await send(port, "GET", "/api/widgets", headers: ["Authorization": "Bearer bad"])
            #expect(feed.status == 401)
            let document = try await postDocument(port, MultipartBody.upload(deviceID: nil), headers: [:])
            #expect(document.status == 401)
            #expect(recorder.calls.isEmpty)
        }
    }

    @Test func rejectionCarriesTheHooksStatusHeadersAndBody() async throws {
        let authentication = NativeAuthentication<String>.hook { _ in
            .rejected(NativeAuthRejection(status: 503, detail: "Sign-in is temporarily unavailable", headers: ["Retry-After": "30"]))
        }
        try await withRoutes(authentication: authentication, callbacks: recordingCallbacks(Recorder())) { port in
            let response = try await send(port, "GET", "/api/approvals")
            #expect(response.status == 503)
            #expect(response.head.headers.first("Retry-After") == "30")
            #expect(response.bodyText == #"{"detail":"Sign-in is temporarily unavailable"}"#)
        }
    }

    @Test func insecureOptOutGivesNoUser() async throws {
        let recorder = Recorder()
        try await withRoutes(authentication: .insecureNoAuthentication, callbacks: recordingCallbacks(recorder)) { port in
            let response = try await post(port, "/api/devices", json: #"{"device_id":"d1"}"#, headers: [:])
            #expect(response.status == 200)
            let call = try #require(recorder.last)
            #expect(call.user == nil)
            #expect(call.deviceID == "d1")
        }
    }

    @Test func hookSeesTheRequestHead() async throws {
        let seen = Locked<[String]>([])
        let authentication = NativeAuthentication<String>.hook { head in
            seen.withLock { $0.append(head.method + " " + head.target) }
            return .authenticated("bob")
        }
        let recorder = Recorder()
        try await withRoutes(authentication: authentication, callbacks: recordingCallbacks(recorder)) { port in
            _ = try await send(port, "GET", "/api/widgets?device_id=x", headers: ["X-Trace": "1"])
            #expect(seen.withLock { $0 } == ["GET /api/widgets?device_id=x"])
            #expect(recorder.last?.user == "bob")
            #expect(recorder.last?.request.headers.first("X-Trace") == "1")
        }
    }
}

/// 413, 422, 404, 405 (contract/routes.md §0, §1).
@Suite struct RefusalTests {
    @Test func jsonBodyCap() async throws {
        let recorder = Recorder()
        let limits = NativeRouteLimits(maxJSONBodyBytes: 40)
        try await withRoutes(callbacks: recordingCallbacks(recorder), limits: limits) { port in
            let exact = #"{"device_id":"d1","user_email":"a@b.ch"}"#  // 40 bytes
            #expect(exact.utf8.count == 40)
            #expect(try await post(port, "/api/devices", json: exact).status == 200)
            let over = #"{"device_id":"d1","user_email":"ab@b.ch"}"#
            let response = try await post(port, "/api/devices", json: over)
            #expect(response.status == 413)
            #expect(response.bodyText == #"{"detail":"Request body too large"}"#)
            #expect(recorder.calls.count == 1)
        }
    }

    @Test func chunkedBodyPastTheCapIs413() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder), limits: NativeRouteLimits(maxJSONBodyBytes: 32)) { port in
            let response = try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    continuation.resume(with: Result {
                        // The same long wait as `send`: the handler's hook needs a concurrency-pool thread.
                        let client = try RawHTTPClient(port: port, timeout: patience)
                        try client.send(
                            "POST /api/devices HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "14\r\n{\"device_id\":\"d1\",  \r\n14\r\n\"user_email\":null}  \r\n0\r\n\r\n")
                        return try client.readResponse(to: "POST")
                    })
                }
                thread.start()
            }
            #expect(response.status == 413)
            #expect(response.bodyText == #"{"detail":"Request body too large"}"#)
            #expect(recorder.calls.isEmpty)
        }
    }

    @Test func headOnAFeedHasNoBody() async throws {
        try await withRoutes(callbacks: recordingCallbacks(Recorder())) { port in
            let response = try await send(port, "HEAD", "/api/approvals")
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
        }
    }

    @Test func validationReportsEveryError() async throws {
        let recorder = Recorder()
        try await withRoutes(callbacks: recordingCallbacks(recorder)) { port in
            let response = try await post(port, "/api/devices", json: #"{"device_id":123,"platform":"android"}"#)
            #expect(response.status == 422)
            let detail = try #require(try json(response.bodyText).objectValue?["detail"]?.arrayValue)
            #expect(detail.count == 2)
            let locations = detail.compactMap { $0.objectValue?["loc"] }
            #expect(locations.contains(["body", "device_id"]))
            #expect(locations.contains(["body", "platform"]))
            let broken = try await post(port, "/api/locations", json: #"{"device_id":"d1","latitude":91,"longitude":181}"#)
            #expect(broken.status == 422)
            #expect(try json(broken.bodyText).objectValue?["detail"]?.arrayValue?.count == 2)
            let notJSON = try await post(port, "/api/widget-actions", json: "{")
            #expect(notJSON.status == 422)
            let empty = try await send(port, "POST", "/api/live-activities")
            #expect(empty.status == 422)
            #expect(recorder.calls.isEmpty)
        }
    }

    @Test func unknownPathsAndUnmountedRoutesAre404() async throws {
        var callbacks = NativeRouteCallbacks<String>()
        callbacks.registerDevice = { _, _ in }
        try await withRoutes(callbacks: callbacks) { port in
            for path in ["/api/nope", "/api/widgets", "/elsewhere", "/api", "/api/devices/", "/apidevices"] {
                let response = try await send(port, "GET", path)
                #expect(response.status == 404, "\(path)")
                #expect(response.bodyText == #"{"detail":"Not Found"}"#, "\(path)")
            }
        }
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        try await withRoutes(callbacks: recordingCallbacks(Recorder())) { port in
            let get = try await send(port, "GET", "/api/devices")
            #expect(get.status == 405)
            #expect(get.head.headers.first("Allow") == "POST")
            #expect(get.bodyText == #"{"detail":"Method Not Allowed"}"#)
            let post = try await send(port, "POST", "/api/widgets")
            #expect(post.status == 405)
            #expect(post.head.headers.first("Allow") == "GET")
        }
    }

    @Test func customPrefixAndFallback() async throws {
        final class Teapot: HTTPExchangeHandler {
            func serve(_ exchange: HTTPExchange) { exchange.respond(status: 418) }
            func exchangeDidEnd(_ exchange: HTTPExchange) {}
        }
        let recorder = Recorder()
        let server = try HTTPServer(
            configuration: try patientConfiguration(),
            metrics: MetricsRegistry(), logger: .disabled
        ) { _ in
            NativeRoutesHandler(prefix: "/native", authentication: testAuthentication, callbacks: recordingCallbacks(recorder), fallback: Teapot())
        }
        server.start()
        defer { server.shutdown(gracePeriod: .seconds(1)) }
        let port = Int(server.boundAddress.port)
        #expect(try await send(port, "GET", "/native/approvals").status == 200)
        #expect(try await send(port, "GET", "/api/approvals").status == 418)
        #expect(try await send(port, "GET", "/native/unknown").status == 404)
    }
}

/// Errors a callback throws (contract/routes.md §0).
@Suite struct CallbackErrorTests {
    @Test func hostHTTPErrorPassesThrough() async throws {
        var callbacks = NativeRouteCallbacks<String>()
        callbacks.registerDevice = { _, _ in throw NativeHTTPError(status: 409, detail: "already registered", headers: ["X-Reason": "dup"]) }
        callbacks.serveApprovals { _ in throw NativeHTTPError(status: 403, detail: ["message": "no", "ids": ["a1"]]) }
        try await withRoutes(callbacks: callbacks) { port in
            let response = try await post(port, "/api/devices", json: #"{"device_id":"d1"}"#)
            #expect(response.status == 409)
            #expect(response.bodyText == #"{"detail":"already registered"}"#)
            #expect(response.head.headers.first("X-Reason") == "dup")
            let object = try await send(port, "GET", "/api/approvals")
            #expect(object.status == 403)
            #expect(object.bodyText == #"{"detail":{"message":"no","ids":["a1"]}}"#)
        }
    }

    @Test func unexpectedErrorIs500WithoutTheMessage() async throws {
        struct StoreDown: Error, CustomStringConvertible {
            var description: String { "database password=hunter2 refused" }
        }
        var callbacks = NativeRouteCallbacks<String>()
        callbacks.widgetAction = { _, _ in throw StoreDown() }
        let sink = InMemoryLogSink()
        try await withRoutes(callbacks: callbacks, logger: Logger(sink: sink)) { port in
            let response = try await post(port, "/api/widget-actions", json: #"{"device_id":"d1","widget_id":"w","action_id":"a"}"#)
            #expect(response.status == 500)
            #expect(response.bodyText == #"{"detail":"Internal Server Error"}"#)
            #expect(!response.bodyText.contains("hunter2"))
            let record = try #require(sink.all.last)
            #expect(record.level == .error)
            #expect(record.metadata["native.route"] == "widget-actions")
            #expect(record.metadata["error"]?.contains("refused") == true)
        }
    }
}
