import AppNativeJSON

/// `/.well-known/apple-app-site-association` (contract/routes.md §6): which paths of this host open in the
/// app as universal links. The gateway's own and the native routes' paths are always excluded,
/// so a link to them never leaves the browser for the app.
public struct AppleAppSiteAssociation: Sendable, Equatable {
    /// `<TEAM_ID>.<BUNDLE_ID>` entries (`APPLE_APP_IDS`).
    public var appIDs: [String]
    /// Path patterns never opened in the app (`APPLE_APP_EXCLUDED_PATHS`, plus the defaults).
    public var excludedPaths: [String]

    public init(appIDs: [String], excludedPaths: [String]) {
        self.appIDs = appIDs
        self.excludedPaths = excludedPaths
    }

    public static let path = "/.well-known/apple-app-site-association"

    /// The JSON document, as Apple's CDN fetches it.
    public var document: [UInt8] {
        var components = excludedPaths.map { JSONValue.object(JSONObject([("/", .string($0)), ("exclude", .bool(true))])) }
        components.append(.object(JSONObject([("/", .string("/*"))])))
        let detail = JSONValue.object(JSONObject([("appIDs", .array(appIDs.map(JSONValue.string))), ("components", .array(components))]))
        let root = JSONValue.object(JSONObject([("applinks", .object(JSONObject([("details", .array([detail]))])))]))
        return JSONSerializer.serialize(root)
    }

    /// A `TEAMID.bundle.id` entry: a 10-character team id, a dot, a reverse-DNS bundle id.
    static func isValidAppID(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
            return false
        }
        return !parts[1].isEmpty && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
    }
}
