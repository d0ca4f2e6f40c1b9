public import AppNativeJSON

/// `POST {p}/devices` (`contract/routes.md` §2.1): the app registering a device and its push token.
///
/// `pushToken`, `platform` and `userEmail` are tri-state (``Reported``) because push
/// registration and sign-in arrive independently and a `null` means "clear it".
public struct DeviceRegistration: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// The platform a device reports; only iOS exists.
    public enum Platform: String, Sendable, Hashable, CaseIterable, WireEnum {
        case ios
    }

    /// App-generated UUID, stable across reinstall. Client input, not identity.
    public var deviceID: String
    /// APNs device token (hex).
    public var pushToken: Reported<String>
    public var platform: Reported<Platform>
    /// Unverified client hint; never identity (`contract/routes.md` §4).
    public var userEmail: Reported<String>

    /// A registration; members default to "not reported".
    public init(
        deviceID: String, pushToken: Reported<String> = .absent, platform: Reported<Platform> = .absent,
        userEmail: Reported<String> = .absent
    ) {
        self.deviceID = deviceID
        self.pushToken = pushToken
        self.platform = platform
        self.userEmail = userEmail
    }

    /// Decodes a snake_case request body, keeping absent and `null` apart.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The snake_case body: absent members left out, cleared ones written as `null`.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("device_id", deviceID)
        writer.set("push_token", pushToken.json { .string($0) })
        writer.set("platform", platform.json { .string($0.rawValue) })
        writer.set("user_email", userEmail.json { .string($0) })
        return writer.value
    }
}

extension DeviceRegistration: ObjectDecodable {
    static var keyStyle: KeyStyle { .snakeCase }

    init?(_ reader: ObjectReader) {
        let deviceID = reader.required("device_id") { $0.string() }
        let pushToken = reader.reported("push_token") { $0.string() }
        let platform = reader.reported("platform") { $0.enumeration(Platform.self) }
        let userEmail = reader.reported("user_email") { $0.string() }
        guard reader.isClean, let deviceID else { return nil }
        self.init(deviceID: deviceID, pushToken: pushToken, platform: platform, userEmail: userEmail)
    }
}

extension Reported {
    /// The member as written: `nil` (left out) when absent, `null` when cleared.
    func json(_ encode: (Value) -> JSONValue) -> JSONValue? {
        switch self {
        case .absent: nil
        case .cleared: .null
        case .set(let value): encode(value)
        }
    }
}
