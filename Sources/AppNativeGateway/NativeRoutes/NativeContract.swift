import AppNativeJSON
import AppNativeModels
import AppNativeProxy
import AppNativeRoutes

/// The contract checks of the native routes: request bodies, the upstream's feeds and results,
/// and the document reference rules (contract/routes.md §2, §3).
enum NativeContract {
    /// Why an upstream answer was refused (for the log; never contains request data).
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    struct Feed {
        var document: [UInt8]
        var dropped: [(id: String, path: String, reason: String)]
    }

    /// The body the backend receives for an accepted request (upstream-contract.md): the decoded
    /// model as the reference's callback model writes it (``ModelEncoding/forwarded(sentKeys:)``),
    /// or the answer that refuses the body: 422 listing every error with its path (the size cap
    /// was applied while the body was read).
    static func forwardedRequest(_ route: NativeRoute, body: [UInt8]) -> Result<[UInt8], MediatedAnswer> {
        let decoder = ModelDecoder(maxBodyBytes: Int.max)
        do throws(ModelError) {
            let value = try decoder.parse(body)
            let encoding = ModelEncoding.forwarded(sentKeys: Set(value.objectValue?.keys ?? []))
            let forwarded: JSONValue
            switch route {
            case .devices: forwarded = try DeviceRegistration(json: value).jsonValue(encoding)
            case .locations: forwarded = try LocationUpdate(json: value).jsonValue(encoding)
            case .notificationActions: forwarded = try NotificationActionReceived(json: value).jsonValue(encoding)
            case .widgetActions: forwarded = try WidgetActionReceived(json: value).jsonValue(encoding)
            case .widgetOptions: forwarded = try WidgetOptionsRequest(json: value).jsonValue(encoding)
            case .approvalDecisions: forwarded = try ApprovalDecisionReceived(json: value).jsonValue(encoding)
            case .liveActivities: forwarded = try LiveActivityTokenReceived(json: value).jsonValue(encoding)
            case .documents, .widgets, .approvals: preconditionFailure("\(route) has no JSON request body")
            }
            return .success(JSONSerializer.serialize(forwarded))
        } catch {
            return .failure(.json(status: error.code == .bodyTooLarge ? 413 : 422, error.responseBytes()))
        }
    }

    /// Whether a `Content-Type` makes the reference read a body as JSON: `application/json` or
    /// `application/<subtype>+json`, parameters ignored (FastAPI's rule). Anything else, a missing
    /// field included, leaves the body as bytes, which no request model accepts.
    static func isJSONMediaType(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let beforeParameters = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let mediaType = String(beforeParameters.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
            .lowercased()
        let parts = mediaType.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "application" else { return false }
        return parts[1] == "json" || (parts[1].hasSuffix("+json") && parts[1].count > "+json".count)
    }

    /// The 422 for a body that did not arrive as JSON: the model met bytes, not an object.
    static func notJSON(body: [UInt8]) -> MediatedAnswer {
        let issue: JSONValue = [
            "type": "model_attributes_type",
            "loc": ["body"],
            "msg": "Input should be a valid dictionary or object to extract fields from",
            "input": .string(String(decoding: body, as: UTF8.self)),
        ]
        let detail: JSONValue = ["detail": [issue]]
        return .json(status: 422, JSONSerializer.serialize(detail))
    }

    /// The feed re-serialized by the models with its invalid entries dropped; `nil` when it is
    /// not a feed at all (not JSON, or a broken envelope).
    static func feed(_ route: NativeRoute, upstreamBody: [UInt8]) -> Feed? {
        guard let value = parse(upstreamBody) else { return nil }
        do throws(ModelError) {
            switch route {
            case .widgets:
                // `web` widgets are kept: whether this backend is the app's privileged feed is the
                // app's decision, not the gateway's.
                let decoded = try WidgetFeed.decodeDroppingInvalid(value, allowsWebWidgets: true)
                let feed = WidgetFeed(widgets: decoded.kept)
                return Feed(document: JSONSerializer.serialize(feed.jsonValue(.response)), dropped: decoded.dropped.map(Self.dropped))
            case .approvals:
                let decoded = try ApprovalFeed.decodeDroppingInvalid(value)
                let feed = ApprovalFeed(approvals: decoded.kept)
                return Feed(document: JSONSerializer.serialize(feed.jsonValue(.response)), dropped: decoded.dropped.map(Self.dropped))
            default:
                preconditionFailure("\(route) is not a feed")
            }
        } catch {
            return nil
        }
    }

    private static func dropped(_ element: DroppedFeedElement) -> (id: String, path: String, reason: String) {
        (element.id ?? "#\(element.index)", element.failingPaths.joined(separator: ","), element.issues.map(\.message).joined(separator: "; "))
    }

    /// The result re-serialized by the models, or why it is refused. An empty answer (204, or a
    /// 2xx without a body) is the callback's `nil`: the result's defaults.
    static func result(_ route: NativeRoute, upstreamBody: [UInt8]) -> Result<[UInt8], Problem> {
        let value: JSONValue
        if upstreamBody.isEmpty {
            value = route == .widgetOptions ? ["options": []] : [:]
        } else {
            guard let parsed = parse(upstreamBody) else { return .failure(Problem(description: "the answer is not JSON")) }
            value = parsed
        }
        do throws(ModelError) {
            let encoded: JSONValue
            switch route {
            case .widgetActions: encoded = try WidgetActionResult(json: value).jsonValue(.response)
            case .widgetOptions: encoded = try WidgetOptionsResult(json: value).jsonValue(.response)
            case .approvalDecisions: encoded = try ApprovalDecisionResult(json: value).jsonValue(.response)
            default: preconditionFailure("\(route) has no result")
            }
            return .success(JSONSerializer.serialize(encoded))
        } catch {
            let paths = error.issues.prefix(5).map { $0.pathDescription + ": " + $0.message }
            return .failure(Problem(description: paths.joined(separator: "; ")))
        }
    }

    /// `{"ok":true}` plus the upstream's reference by the rules of contract/routes.md §2.8: a non-empty
    /// string or an integer becomes `id`; an object's `id` member follows the same rules; anything
    /// else (nothing, booleans, "", floats, lists) gives no `id`. A `text/plain` answer is the
    /// reference as text, the way the reference echoes a callback's returned string: its UTF-8
    /// text, when non-empty, is the `id` (JSON rules do not apply to it).
    static func documentAnswer(upstreamBody: [UInt8], contentType: String?) -> [UInt8] {
        if isTextPlainMediaType(contentType) {
            var members: [(String, JSONValue)] = [("ok", .bool(true))]
            if !upstreamBody.isEmpty, let text = String(validating: upstreamBody, as: UTF8.self) {
                members.append(("id", .string(text)))
            }
            return JSONSerializer.serialize(.object(JSONObject(members)))
        }
        guard let value = parse(upstreamBody) else { return Array(#"{"ok":true}"#.utf8) }
        func reference(_ value: JSONValue, nested: Bool) -> JSONValue? {
            switch value {
            case .string(let text) where !text.isEmpty:
                return value
            case .number(let number) where number.isInteger:
                return value
            case .object(let object) where !nested:
                return object["id"].flatMap { reference($0, nested: true) }
            default:
                return nil
            }
        }
        var members: [(String, JSONValue)] = [("ok", .bool(true))]
        if let id = reference(value, nested: false) { members.append(("id", id)) }
        return JSONSerializer.serialize(.object(JSONObject(members)))
    }

    /// Whether a `Content-Type` is `text/plain`, parameters (a charset) ignored.
    private static func isTextPlainMediaType(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let beforeParameters = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let mediaType = beforeParameters.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        return String(mediaType).lowercased() == "text/plain"
    }

    private static func parse(_ body: [UInt8]) -> JSONValue? {
        guard !body.isEmpty else { return nil }
        return try? body.withUnsafeBytes { bytes throws(JSONError) in try JSONParser().parse(bytes) }
    }
}
