import AppNativeAPNs
import AppNativeJSON
import AppNativeModels

/// A decoded push API request: the notification and its device tokens. Built from the JSON body
/// in one pass that reports every field error with its JSON path (docs/style.md §4).
struct PushRequest: Sendable {
    var notification: APNsNotification
    var tokens: [String]

    /// One failing field.
    struct FieldError: Sendable, Equatable {
        var field: String
        var reason: String
    }

    /// Decodes the body of `POST /push/<kind>`.
    ///
    /// - Returns: the request, or every field error found.
    static func decode(kind: PushKind, body: [UInt8], maxBatch: Int) -> Result<PushRequest, PushRequestErrors> {
        guard let object = (try? JSONParser().parse(body))?.objectValue else {
            return .failure(PushRequestErrors([FieldError(field: "$", reason: "the body must be a JSON object")]))
        }
        var fields = Fields(object: object)
        let tokens = fields.tokens(maxBatch: maxBatch)
        let expiration = fields.integer("expiration", in: 0...Int64(Int32.max) * 4)
        let collapseID = fields.string("collapse_id")
        var built: APNsNotification?
        func build(_ field: String, _ body: () throws(APNsError) -> APNsNotification) {
            guard fields.errors.isEmpty else { return }
            do {
                built = try body()
            } catch {
                fields.errors.append(FieldError(field: field, reason: error.reason))
            }
        }
        switch kind {
        case .alert:
            let title = fields.required("title"), text = fields.required("body")
            let data = fields.object("data"), path = fields.string("path"), actions = fields.actions()
            let level = fields.enumeration("interruption_level", APNsInterruptionLevel.self)
            build("data") { () throws(APNsError) in
                try .alert(title: title, body: text, data: data, path: path, actions: actions, interruptionLevel: level)
            }
        case .silent:
            let data = fields.object("data")
            build("data") { () throws(APNsError) in try .silent(data: data) }
        case .critical:
            let webApp = fields.required("webapp_id"), title = fields.required("title"), text = fields.required("body")
            let label = fields.string("acknowledge_label") ?? "Got it", volume = fields.number("volume") ?? 1.0
            let data = fields.object("data")
            build("data") { () throws(APNsError) in
                try .critical(webAppID: webApp, title: title, body: text, acknowledgeLabel: label, volume: volume, data: data)
            }
        case .widgets:
            let webApp = fields.required("webapp_id"), widgets = fields.array("widgets")
            build("widgets") { () throws(APNsError) in .widgetUpdate(webAppID: webApp, widgets: widgets) }
        case .approvals:
            let webApp = fields.required("webapp_id")
            build("webapp_id") { () throws(APNsError) in .approvalsRefresh(webAppID: webApp) }
        case .liveActivityStart:
            let state = fields.state(required: true), attributes = fields.attributes()
            let alertTitle = fields.string("alert_title"), alertBody = fields.string("alert_body")
            let staleAt = fields.number("stale_at")
            build("state") { () throws(APNsError) in
                try .liveActivityStart(
                    state: state!, attributes: attributes!, alertTitle: alertTitle, alertBody: alertBody, staleAt: staleAt)
            }
        case .liveActivityUpdate:
            let state = fields.state(required: true)
            let alertTitle = fields.string("alert_title"), alertBody = fields.string("alert_body")
            let staleAt = fields.number("stale_at"), priority = fields.integer("priority", in: 5...10) ?? 10
            if priority != 5 && priority != 10 { fields.fail("priority", "must be 5 or 10") }
            build("priority") { () throws(APNsError) in
                try .liveActivityUpdate(
                    state: state!, alertTitle: alertTitle, alertBody: alertBody, staleAt: staleAt, priority: Int(priority))
            }
        case .liveActivityEnd:
            let state = fields.state(required: false), dismissAt = fields.number("dismiss_at")
            build("dismiss_at") { () throws(APNsError) in try .liveActivityEnd(state: state, dismissAt: dismissAt) }
        }
        fields.checkUnread()
        guard fields.errors.isEmpty, var notification = built else { return .failure(PushRequestErrors(fields.errors)) }
        notification.expiration = expiration
        notification.collapseID = collapseID
        do {
            _ = try notification.headers(bundleID: "-", apnsID: "-")
            _ = try notification.body()
        } catch {
            let field = error.code == .payloadTooLarge ? "$" : "collapse_id"
            return .failure(PushRequestErrors([FieldError(field: field, reason: error.reason)]))
        }
        return .success(PushRequest(notification: notification, tokens: tokens))
    }
}

/// Every field error of one request.
struct PushRequestErrors: Error, Sendable {
    var errors: [PushRequest.FieldError]
    init(_ errors: [PushRequest.FieldError]) { self.errors = errors }
}

/// Reads members of the request object, collecting errors instead of stopping at the first.
private struct Fields {
    let object: JSONObject
    var read: Set<String> = []
    var errors: [PushRequest.FieldError] = []

    init(object: JSONObject) { self.object = object }

    mutating func fail(_ field: String, _ reason: String) {
        errors.append(PushRequest.FieldError(field: field, reason: reason))
    }

    mutating func value(_ key: String) -> JSONValue? {
        read.insert(key)
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    mutating func string(_ key: String) -> String? {
        guard let value = value(key) else { return nil }
        guard let string = value.stringValue else {
            fail(key, "must be a string")
            return nil
        }
        return string
    }

    mutating func required(_ key: String) -> String {
        let present = object[key].map { !$0.isNull } ?? false
        guard present else {
            read.insert(key)
            fail(key, "is required")
            return ""
        }
        return string(key) ?? ""
    }

    mutating func number(_ key: String) -> Double? {
        guard let value = value(key) else { return nil }
        guard let number = value.numberValue?.double, number.isFinite else {
            fail(key, "must be a number")
            return nil
        }
        return number
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int64>) -> Int64? {
        guard let value = value(key) else { return nil }
        guard let number = value.numberValue?.int64, range.contains(number) else {
            fail(key, "must be an integer in \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return number
    }

    mutating func object(_ key: String) -> JSONObject? {
        guard let value = value(key) else { return nil }
        guard let object = value.objectValue else {
            fail(key, "must be an object")
            return nil
        }
        if object.contains("aps") { fail(key + ".aps", "must not be set (it would replace the aps dictionary)") }
        return object
    }

    mutating func array(_ key: String) -> [JSONValue]? {
        guard let value = value(key) else { return nil }
        guard let array = value.arrayValue else {
            fail(key, "must be a list or null")
            return nil
        }
        return array
    }

    mutating func enumeration<E: RawRepresentable & CaseIterable>(_ key: String, _ type: E.Type) -> E? where E.RawValue == String {
        guard let text = string(key) else { return nil }
        guard let parsed = E(rawValue: text) else {
            fail(key, "must be one of " + E.allCases.map(\.rawValue).joined(separator: ", "))
            return nil
        }
        return parsed
    }

    mutating func actions() -> [APNsAlertAction]? {
        guard let list = array("actions") else { return nil }
        var actions: [APNsAlertAction] = []
        for (index, element) in list.enumerated() {
            guard let id = element["id"]?.stringValue, !id.isEmpty, let title = element["title"]?.stringValue else {
                fail("actions[\(index)]", "must be {\"id\": non-empty string, \"title\": string}")
                continue
            }
            actions.append(APNsAlertAction(id: id, title: title))
        }
        return actions
    }

    mutating func tokens(maxBatch: Int) -> [String] {
        guard let value = value("tokens") else {
            fail("tokens", "is required")
            return []
        }
        guard let list = value.arrayValue else {
            fail("tokens", "must be a list of device tokens")
            return []
        }
        guard !list.isEmpty, list.count <= maxBatch else {
            fail("tokens", "must hold 1 to \(maxBatch) device tokens")
            return []
        }
        var tokens: [String] = []
        for (index, element) in list.enumerated() {
            guard let token = element.stringValue, !token.isEmpty, token.utf8.count <= 512,
                token.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) })
            else {
                fail("tokens[\(index)]", "must be 1 to 512 hexadecimal digits")
                continue
            }
            tokens.append(token)
        }
        return tokens
    }

    mutating func state(required: Bool) -> LiveActivityState? {
        guard let object = object("state") else {
            if required, !errors.contains(where: { $0.field == "state" }) { fail("state", "is required") }
            return nil
        }
        do {
            return try LiveActivityState(json: .object(object))
        } catch {
            fail("state", error)
            return nil
        }
    }

    mutating func attributes() -> LiveActivityAttributes? {
        guard let object = object("attributes") else {
            if !errors.contains(where: { $0.field == "attributes" }) { fail("attributes", "is required") }
            return nil
        }
        do {
            return try LiveActivityAttributes(json: .object(object))
        } catch {
            fail("attributes", error)
            return nil
        }
    }

    /// One field error per issue of a contract model's decoding (contract/models.md §5), each naming the
    /// issue's path inside `key`. Issue messages never quote the input.
    mutating func fail(_ key: String, _ error: ModelError) {
        guard !error.issues.isEmpty else { return fail(key, error.reason) }
        for issue in error.issues { fail(key, "\(issue.pathDescription): \(issue.message)") }
    }

    mutating func checkUnread() {
        for key in object.keys where !read.contains(key) { fail(key, "is not a known field") }
    }
}
