public import AppNativeJSON

/// The `attributes` of a push-to-start Live Activity (`contract/models.md` §5).
///
/// Keys end in capital `ID` (`webAppID`, `activityID`) because they are the app's Swift
/// property names, unlike every other model.
public struct LiveActivityAttributes: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// `ATTRIBUTES_TYPE`: the `attributes-type` value of the push payload.
    public static let attributesType = "WebAppActivityAttributes"

    public var webAppID: String
    /// Non-empty.
    public var activityID: String
    public var webAppName: String
    public var icon: String?
    public var tint: String?
    public var path: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        webAppID: String, activityID: String, webAppName: String, icon: String? = nil, tint: String? = nil,
        path: String? = nil
    ) {
        self.webAppID = webAppID
        self.activityID = activityID
        self.webAppName = webAppName
        self.icon = icon
        self.tint = tint
        self.path = path
    }

    /// Decodes attributes; `web_app_id` / `activity_id` / `web_app_name` are accepted too.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("webAppID", webAppID)
        writer.set("activityID", activityID)
        writer.set("webAppName", webAppName)
        writer.set("icon", icon)
        writer.set("tint", tint)
        writer.set("path", path)
        return writer.value
    }
}

extension LiveActivityAttributes: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let webAppID = reader.required("webAppID") { $0.string() }
        let activityID = reader.required("activityID") { $0.nonEmptyString() }
        let webAppName = reader.required("webAppName") { $0.string() }
        let icon = reader.optional("icon") { $0.string() }
        let tint = reader.optional("tint") { $0.string() }
        let path = reader.optional("path") { $0.string() }
        guard reader.isClean, let webAppID, let activityID, let webAppName else { return nil }
        self.init(webAppID: webAppID, activityID: activityID, webAppName: webAppName, icon: icon, tint: tint, path: path)
    }
}
