/// Apple's `reason` strings (contract/apns.md §5), a remote vocabulary: unknown strings are kept, not lost.
public enum APNsReason: Sendable, Hashable, CustomStringConvertible {
    case badCollapseID, badDeviceToken, badExpirationDate, badMessageID, badPriority, badTopic
    case deviceTokenNotForTopic, duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken
    case missingTopic, payloadEmpty, topicDisallowed
    case badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden
    case invalidProviderToken, missingProviderToken, unrelatedKeyIDInToken, badEnvironmentKeyInToken
    case badPath, methodNotAllowed, unregistered, expiredToken, payloadTooLarge
    case tooManyProviderTokenUpdates, tooManyRequests, internalServerError, serviceUnavailable, shutdown
    /// A reason this version does not know, verbatim.
    case unknown(String)

    private static let known: [(APNsReason, String)] = [
        (.badCollapseID, "BadCollapseId"), (.badDeviceToken, "BadDeviceToken"),
        (.badExpirationDate, "BadExpirationDate"), (.badMessageID, "BadMessageId"),
        (.badPriority, "BadPriority"), (.badTopic, "BadTopic"),
        (.deviceTokenNotForTopic, "DeviceTokenNotForTopic"), (.duplicateHeaders, "DuplicateHeaders"),
        (.idleTimeout, "IdleTimeout"), (.invalidPushType, "InvalidPushType"),
        (.missingDeviceToken, "MissingDeviceToken"), (.missingTopic, "MissingTopic"),
        (.payloadEmpty, "PayloadEmpty"), (.topicDisallowed, "TopicDisallowed"),
        (.badCertificate, "BadCertificate"), (.badCertificateEnvironment, "BadCertificateEnvironment"),
        (.expiredProviderToken, "ExpiredProviderToken"), (.forbidden, "Forbidden"),
        (.invalidProviderToken, "InvalidProviderToken"), (.missingProviderToken, "MissingProviderToken"),
        (.unrelatedKeyIDInToken, "UnrelatedKeyIdInToken"), (.badEnvironmentKeyInToken, "BadEnvironmentKeyInToken"),
        (.badPath, "BadPath"), (.methodNotAllowed, "MethodNotAllowed"), (.unregistered, "Unregistered"),
        (.expiredToken, "ExpiredToken"), (.payloadTooLarge, "PayloadTooLarge"),
        (.tooManyProviderTokenUpdates, "TooManyProviderTokenUpdates"), (.tooManyRequests, "TooManyRequests"),
        (.internalServerError, "InternalServerError"), (.serviceUnavailable, "ServiceUnavailable"),
        (.shutdown, "Shutdown"),
    ]

    private static let byName: [String: APNsReason] = Dictionary(
        uniqueKeysWithValues: known.map { ($0.1, $0.0) })

    /// The reason named by Apple's string.
    public init(_ name: String) {
        self = Self.byName[name] ?? .unknown(name)
    }

    /// Apple's spelling.
    public var name: String {
        if case .unknown(let name) = self { return name }
        return Self.known.first { $0.0 == self }?.1 ?? ""
    }

    /// The reasons after which the device token must be deleted (contract/apns.md §4,
    /// `PERMANENTLY_INVALID_TOKEN_REASONS`). `BadDeviceToken` often means a sandbox/production
    /// mismatch rather than a dead device.
    public var isPermanentlyInvalidToken: Bool { self == .badDeviceToken || self == .unregistered }

    /// Whether the provider token itself was refused, so the next send should use a new one
    /// (subject to the 20-minute rule).
    var invalidatesProviderToken: Bool {
        self == .expiredProviderToken || self == .invalidProviderToken
    }

    /// A bounded metric label: the known name, or `unknown` (a remote string never becomes a label).
    var metricLabel: String {
        if case .unknown = self { return "unknown" }
        return name
    }

    public var description: String { name }
}
