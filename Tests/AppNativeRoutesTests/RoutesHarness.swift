import AppNativeCore
import AppNativeHTTP
import AppNativeJSON
import AppNativeModels
import AppNativeRoutes
import AppNativeServer
import AppNativeTesting
import Foundation

/// What a recording callback saw.
struct RecordedCall: Sendable {
    var route: String
    var user: String?
    var deviceID: String?
    var request: HTTPRequestHead
    var body: (any Sendable)?
}

/// Records every callback; `calls` is read by the tests after the response arrived (the callback
/// ran before the response was sent).
final class Recorder: Sendable {
    private let storage = Locked<[RecordedCall]>([])

    var calls: [RecordedCall] { storage.withLock { $0 } }
    var last: RecordedCall? { calls.last }

    func record(_ route: String, _ context: NativeRequestContext<String>, _ body: (any Sendable)? = nil) {
        let call = RecordedCall(route: route, user: context.user, deviceID: context.deviceID, request: context.request, body: body)
        storage.withLock { $0.append(call) }
    }
}

/// The test's authentication hook: `Authorization: Bearer good` is user `alice`; anything else is
/// refused with the contract's 401.
let testAuthentication = NativeAuthentication<String>.hook { head in
    head.headers.first("Authorization") == "Bearer good" ? .authenticated("alice") : .rejected(.notAuthenticated)
}

let authorized = ["Authorization": "Bearer good"]

/// Every callback recording into `recorder` and answering with the given values.
func recordingCallbacks(
    _ recorder: Recorder,
    widgetAction: WidgetActionResult? = nil,
    approvalDecision: ApprovalDecisionResult? = nil,
    documentReference: JSONValue? = nil,
    widgets: [Widget] = [],
    approvals: [Approval] = [],
    options: [ActionOption] = []
) -> NativeRouteCallbacks<String> {
    var callbacks = NativeRouteCallbacks<String>()
    callbacks.registerDevice = { recorder.record("devices", $1, $0) }
    callbacks.updateLocation = { recorder.record("locations", $1, $0) }
    callbacks.receiveDocument = { upload, context in
        recorder.record("documents", context, upload)
        return documentReference
    }
    callbacks.notificationAction = { recorder.record("notification-actions", $1, $0) }
    callbacks.serveWidgets { context in
        recorder.record("widgets", context)
        return widgets
    }
    callbacks.widgetAction = { request, context in
        recorder.record("widget-actions", context, request)
        return widgetAction
    }
    callbacks.serveWidgetOptions { request, context in
        recorder.record("widget-options", context, request)
        return options
    }
    callbacks.serveApprovals { context in
        recorder.record("approvals", context)
        return approvals
    }
    callbacks.approvalDecision = { request, context in
        recorder.record("approval-decisions", context, request)
        return approvalDecision
    }
    callbacks.liveActivity = { recorder.record("live-activities", $1, $0) }
    return callbacks
}

/// How long a test's client and server wait for each other. The handler's hooks and callbacks
/// need a concurrency-pool thread, which other suites can hold for minutes in a full parallel
/// run on a loaded machine: a guard against a hang, far longer than any such stall, not a
/// timing the tests rely on (none of them tests a timeout).
let patience: Duration = .seconds(600)

/// A server configuration on 127.0.0.1:0 whose head, body and write timeouts are `patience`:
/// a request whose handler waits for the pool must not be answered 408.
func patientConfiguration() throws -> ServerConfiguration {
    var configuration = ServerConfiguration(listenAddress: try SocketAddress(parsing: "127.0.0.1:0"), eventLoops: 1)
    configuration.headerTimeout = patience
    configuration.bodyIdleTimeout = patience
    configuration.writeTimeout = patience
    return configuration
}

/// A real `HTTPServer` on 127.0.0.1:0 serving a `NativeRoutesHandler`, shut down after `body`.
func withRoutes<T>(
    authentication: NativeAuthentication<String> = testAuthentication,
    callbacks: NativeRouteCallbacks<String>,
    limits: NativeRouteLimits = NativeRouteLimits(),
    logger: Logger = .disabled,
    fallback: (@Sendable () -> any HTTPExchangeHandler)? = nil,
    _ body: (Int) async throws -> T
) async throws -> T {
    let server = try HTTPServer(
        configuration: try patientConfiguration(),
        metrics: MetricsRegistry(),
        logger: .disabled
    ) { _ in
        NativeRoutesHandler(authentication: authentication, callbacks: callbacks, limits: limits, logger: logger, fallback: fallback?())
    }
    server.start()
    defer { server.shutdown(gracePeriod: .seconds(1)) }
    return try await body(Int(server.boundAddress.port))
}

/// One request on a fresh connection, made on its own thread: the client blocks, and the
/// handler's hooks and callbacks need the concurrency pool's threads to answer it.
func send(
    _ port: Int, _ method: String, _ target: String, headers: [String: String] = authorized, body: [UInt8] = []
) async throws -> RawHTTPClient.Response {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result {
                try RawHTTPClient.request(port: port, method: method, target, headers: headers, body: body, timeout: patience)
            })
        }
        thread.start()
    }
}

func post(_ port: Int, _ path: String, json: String, headers: [String: String] = authorized) async throws -> RawHTTPClient.Response {
    var headers = headers
    headers["Content-Type"] = "application/json"
    return try await send(port, "POST", path, headers: headers, body: Array(json.utf8))
}

/// A `multipart/form-data` body built by hand, so tests control every header byte.
struct MultipartBody {
    static let boundary = "test-boundary-7MA4YWxkTrZu0gW"
    private(set) var bytes: [UInt8] = []

    mutating func field(_ name: String, _ value: String) {
        bytes += Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }

    mutating func file(_ name: String = "file", filename: String?, contentType: String? = nil, content: [UInt8]) {
        var head = "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\""
        if let filename { head += "; filename=\"\(filename)\"" }
        head += "\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        bytes += Array((head + "\r\n").utf8) + content + Array("\r\n".utf8)
    }

    func finished() -> [UInt8] { bytes + Array("--\(Self.boundary)--\r\n".utf8) }

    static func upload(
        deviceID: String? = "dev-1", filename: String = "scan.pdf", contentType: String? = "application/pdf",
        content: [UInt8] = Array("%PDF-1.7".utf8), fields: [(String, String)] = []
    ) -> [UInt8] {
        var body = MultipartBody()
        if let deviceID { body.field("device_id", deviceID) }
        for (name, value) in fields { body.field(name, value) }
        body.file(filename: filename, contentType: contentType, content: content)
        return body.finished()
    }
}

func postDocument(_ port: Int, _ body: [UInt8], headers: [String: String] = authorized) async throws -> RawHTTPClient.Response {
    var headers = headers
    headers["Content-Type"] = "multipart/form-data; boundary=\(MultipartBody.boundary)"
    return try await send(port, "POST", "/api/documents", headers: headers, body: body)
}

func json(_ text: String) throws -> JSONValue { try JSONParser().parse(text) }
