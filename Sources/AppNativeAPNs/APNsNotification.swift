public import AppNativeClient
public import AppNativeJSON

/// What a push is, for headers and metrics: one case per send function of contract/apns.md §2.
public enum APNsNotificationKind: String, Sendable, Hashable, CaseIterable {
    case alert
    case critical
    case silent
    case widgets
    case approvals
    case liveActivityStart = "live_activity_start"
    case liveActivityUpdate = "live_activity_update"
    case liveActivityEnd = "live_activity_end"
}

/// The `apns-push-type` header values this sender uses.
public enum APNsPushType: String, Sendable, Hashable {
    case alert
    case background
    case liveActivity = "liveactivity"
}

/// A notification ready to send: its payload and the header choices of its kind.
///
/// Built by the static builders in `APNsNotification+Builders.swift`, which implement the
/// payload rules of contract/apns.md §1; `apnsExpiration` and `collapseID` may be set afterwards.
public struct APNsNotification: Sendable, Equatable {
    /// Apple's payload limit for every push type this sender uses (VoIP's 5120 is not used).
    public static let maxPayloadBytes = 4096
    /// `apns-collapse-id` may not exceed 64 bytes (Apple's documented limit).
    public static let maxCollapseIDBytes = 64

    /// Which send function built it.
    public let kind: APNsNotificationKind
    /// The JSON payload (the request body).
    public let payload: JSONObject
    /// `apns-push-type`.
    public let pushType: APNsPushType
    /// `apns-priority`: 10 (immediate) or 5 (power-considerate).
    public let priority: Int
    /// Whether the topic is `<bundle>.push-type.liveactivity` rather than the bundle id.
    public var usesLiveActivityTopic: Bool { pushType == .liveActivity }
    /// `apns-expiration`: Unix seconds after which Apple stops trying; 0 = deliver once or drop.
    /// `nil` sends no header (Apple then stores the push for a while).
    public var expiration: Int64?
    /// `apns-collapse-id`: notifications with the same id replace each other on the device.
    public var collapseID: String?

    init(kind: APNsNotificationKind, payload: JSONObject, pushType: APNsPushType, priority: Int) {
        self.kind = kind
        self.payload = payload
        self.pushType = pushType
        self.priority = priority
    }

    /// The compact UTF-8 body, checked against the 4096-byte limit.
    ///
    /// - Throws: `APNsError` `.payloadTooLarge` (with the size) before anything is sent.
    public func body() throws(APNsError) -> [UInt8] {
        let bytes = JSONSerializer.serialize(.object(payload))
        guard bytes.count <= Self.maxPayloadBytes else {
            throw APNsError(
                .payloadTooLarge,
                reason: "\(kind.rawValue) payload is \(bytes.count) bytes; Apple accepts at most \(Self.maxPayloadBytes)"
            )
        }
        return bytes
    }

    /// The `apns-topic` for `bundleID`.
    public func topic(bundleID: String) -> String {
        usesLiveActivityTopic ? bundleID + ".push-type.liveactivity" : bundleID
    }

    /// The request headers except `authorization` (contract/apns.md §2), in a fixed order.
    ///
    /// - Parameters:
    ///   - bundleID: the app's bundle id.
    ///   - apnsID: the request's UUID, kept across retries.
    /// - Throws: `.invalidPayload` for a collapse id over 64 bytes or with control characters.
    public func headers(bundleID: String, apnsID: String) throws(APNsError) -> [HTTPHeaderField] {
        var fields = [
            HTTPHeaderField(name: "apns-id", value: apnsID),
            HTTPHeaderField(name: "apns-push-type", value: pushType.rawValue),
            HTTPHeaderField(name: "apns-priority", value: String(priority)),
            HTTPHeaderField(name: "apns-topic", value: topic(bundleID: bundleID)),
        ]
        if let expiration {
            guard expiration >= 0 else {
                throw APNsError(.invalidPayload, reason: "apns-expiration must not be negative")
            }
            fields.append(HTTPHeaderField(name: "apns-expiration", value: String(expiration)))
        }
        if let collapseID {
            guard !collapseID.isEmpty, collapseID.utf8.count <= Self.maxCollapseIDBytes,
                collapseID.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7f })
            else {
                throw APNsError(
                    .invalidPayload,
                    reason: "apns-collapse-id must be 1 to \(Self.maxCollapseIDBytes) bytes of printable text")
            }
            fields.append(HTTPHeaderField(name: "apns-collapse-id", value: collapseID))
        }
        return fields
    }
}
