public import AppNativeJSON

extension LiveActivityState {
    /// A state from its `content-state` JSON (camelCase keys; `timerEnd` in Unix seconds).
    ///
    /// - Throws: `.invalidPayload` naming the first field of the wrong type, or any rule of
    ///   `init(title:…)`. Unknown keys are refused so that a typo is not silently dropped.
    public init(json object: JSONObject) throws(APNsError) {
        let reader = FieldReader(object: object, path: "content-state")
        try reader.checkKnown(["title", "subtitle", "status", "progress", "steps", "currentStep", "timerEnd", "icon", "tint"])
        try self.init(
            title: try reader.string("title") ?? "",
            subtitle: try reader.string("subtitle"),
            status: try reader.string("status"),
            progress: try reader.double("progress"),
            steps: try reader.strings("steps"),
            currentStep: try reader.int("currentStep"),
            timerEnd: try reader.double("timerEnd"),
            icon: try reader.string("icon"),
            tint: try reader.string("tint"))
    }
}

extension LiveActivityAttributes {
    /// Attributes from their JSON (`webAppID`, `activityID`, `webAppName`, `icon`, `tint`, `path`).
    ///
    /// - Throws: `.invalidPayload` naming the missing or mistyped field.
    public init(json object: JSONObject) throws(APNsError) {
        let reader = FieldReader(object: object, path: "attributes")
        try reader.checkKnown(["webAppID", "activityID", "webAppName", "icon", "tint", "path"])
        try self.init(
            webAppID: try reader.required("webAppID"),
            activityID: try reader.required("activityID"),
            webAppName: try reader.required("webAppName"),
            icon: try reader.string("icon"),
            tint: try reader.string("tint"),
            path: try reader.string("path"))
    }
}

/// Typed reads of JSON members with errors that name the member's path.
struct FieldReader {
    var object: JSONObject
    var path: String

    func fail(_ key: String, _ expected: String) -> APNsError {
        APNsError(.invalidPayload, reason: "\(path).\(key) must be \(expected)")
    }

    func checkKnown(_ keys: Set<String>) throws(APNsError) {
        if let unknown = object.keys.first(where: { !keys.contains($0) }) {
            throw APNsError(.invalidPayload, reason: "\(path).\(unknown) is not a known field")
        }
    }

    func string(_ key: String) throws(APNsError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw fail(key, "a string") }
        return string
    }

    func required(_ key: String) throws(APNsError) -> String {
        guard let value = try string(key) else { throw fail(key, "present") }
        return value
    }

    func double(_ key: String) throws(APNsError) -> Double? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let number = value.numberValue?.double else { throw fail(key, "a number") }
        return number
    }

    func int(_ key: String) throws(APNsError) -> Int? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let number = value.numberValue?.int64, let int = Int(exactly: number) else { throw fail(key, "an integer") }
        return int
    }

    func strings(_ key: String) throws(APNsError) -> [String]? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let array = value.arrayValue else { throw fail(key, "a list of strings") }
        var strings: [String] = []
        for element in array {
            guard let string = element.stringValue else { throw fail(key, "a list of strings") }
            strings.append(string)
        }
        return strings
    }
}
