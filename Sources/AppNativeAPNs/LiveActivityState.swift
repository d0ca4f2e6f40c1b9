public import AppNativeJSON

/// The `content-state` of a Live Activity (models.md §5): camelCase, nil members omitted.
public struct LiveActivityState: Sendable, Hashable {
    /// Required, non-empty.
    public var title: String
    public var subtitle: String?
    /// Short text for the compact Dynamic Island.
    public var status: String?
    /// 0 ≤ progress ≤ 1.
    public var progress: Double?
    /// At most 5 steps.
    public var steps: [String]?
    /// ≥ 0, and below `steps.count` when `steps` is not empty.
    public var currentStep: Int?
    /// Unix seconds; encoded as a JSON number (`1790519400.0`).
    public var timerEnd: Double?
    /// SF Symbol name.
    public var icon: String?
    /// Colour; not validated (models.md §5).
    public var tint: String?

    /// Creates a state, checking every rule of models.md §5.
    ///
    /// - Throws: `APNsError` `.invalidPayload` naming the first field that breaks a rule.
    public init(
        title: String,
        subtitle: String? = nil,
        status: String? = nil,
        progress: Double? = nil,
        steps: [String]? = nil,
        currentStep: Int? = nil,
        timerEnd: Double? = nil,
        icon: String? = nil,
        tint: String? = nil
    ) throws(APNsError) {
        guard !title.isEmpty else { throw APNsError(.invalidPayload, reason: "content-state.title must not be empty") }
        if let progress, !(progress >= 0 && progress <= 1) {
            throw APNsError(.invalidPayload, reason: "content-state.progress must be between 0 and 1")
        }
        if let steps, steps.count > 5 {
            throw APNsError(.invalidPayload, reason: "content-state.steps has more than 5 entries")
        }
        if let currentStep {
            guard currentStep >= 0 else {
                throw APNsError(.invalidPayload, reason: "content-state.currentStep must not be negative")
            }
            if let steps, !steps.isEmpty, currentStep >= steps.count {
                throw APNsError(.invalidPayload, reason: "content-state.currentStep is past the last step")
            }
        }
        if let timerEnd, !timerEnd.isFinite {
            throw APNsError(.invalidPayload, reason: "content-state.timerEnd must be a finite number")
        }
        self.title = title
        self.subtitle = subtitle
        self.status = status
        self.progress = progress
        self.steps = steps
        self.currentStep = currentStep
        self.timerEnd = timerEnd
        self.icon = icon
        self.tint = tint
    }

    /// The `content-state` object.
    public var json: JSONObject {
        var object = JSONObject()
        object["title"] = .string(title)
        if let subtitle { object["subtitle"] = .string(subtitle) }
        if let status { object["status"] = .string(status) }
        if let progress, let number = JSONNumber(progress) { object["progress"] = .number(number) }
        if let steps { object["steps"] = .array(steps.map(JSONValue.string)) }
        if let currentStep { object["currentStep"] = .number(JSONNumber(currentStep)) }
        if let timerEnd, let number = JSONNumber(timerEnd) { object["timerEnd"] = .number(number) }
        if let icon { object["icon"] = .string(icon) }
        if let tint { object["tint"] = .string(tint) }
        return object
    }
}

/// The static attributes of a push-started Live Activity (models.md §5). Keys keep the capital
/// `ID` suffixes of the app's Swift property names.
public struct LiveActivityAttributes: Sendable, Hashable {
    /// `ATTRIBUTES_TYPE`: the app's ActivityAttributes type name.
    public static let typeName = "WebAppActivityAttributes"

    public var webAppID: String
    /// Required, non-empty.
    public var activityID: String
    public var webAppName: String
    public var icon: String?
    public var tint: String?
    public var path: String?

    /// Creates attributes.
    /// - Throws: `.invalidPayload` when `activityID` is empty.
    public init(
        webAppID: String,
        activityID: String,
        webAppName: String,
        icon: String? = nil,
        tint: String? = nil,
        path: String? = nil
    ) throws(APNsError) {
        guard !activityID.isEmpty else {
            throw APNsError(.invalidPayload, reason: "attributes.activityID must not be empty")
        }
        self.webAppID = webAppID
        self.activityID = activityID
        self.webAppName = webAppName
        self.icon = icon
        self.tint = tint
        self.path = path
    }

    /// The `attributes` object.
    public var json: JSONObject {
        var object: JSONObject = [
            "webAppID": .string(webAppID), "activityID": .string(activityID), "webAppName": .string(webAppName),
        ]
        if let icon { object["icon"] = .string(icon) }
        if let tint { object["tint"] = .string(tint) }
        if let path { object["path"] = .string(path) }
        return object
    }
}
