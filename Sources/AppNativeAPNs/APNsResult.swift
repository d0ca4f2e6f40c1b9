public import AppNativeJSON

/// The outcome of one push to one device (`(sent, reason)` of contract/apns.md plus Apple's details).
///
/// Apple's refusals are results, not errors. So is a transport failure that outlived every
/// retry (`transportError`, with `sent == false` and no status or reason): the contract's
/// "exhausted connection attempts" as a distinct result, so a batch keeps one result per device.
public struct APNsResult: Sendable, Equatable {
    /// The device (or Live Activity push) token the push went to.
    public var deviceToken: String
    /// Whether Apple accepted the push (status 200).
    public var sent: Bool
    /// Apple's reason when it refused the push; nil when sent or when no answer came.
    public var reason: APNsReason?
    /// Apple's HTTP status of the last attempt; nil when no answer came.
    public var status: Int?
    /// The request's `apns-id` (Apple's echo when it sent one), the same on every attempt.
    public var apnsID: String
    /// For 410: when Apple last knew the token invalid, milliseconds since 1970.
    public var unregisteredAt: Int64?
    /// Attempts made, retries included.
    public var attempts: Int
    /// Why no answer came (timeout, connection lost on every attempt).
    public var transportError: APNsError?

    /// Creates a result (public for fakes of the sender).
    public init(
        deviceToken: String,
        sent: Bool,
        reason: APNsReason? = nil,
        status: Int? = nil,
        apnsID: String,
        unregisteredAt: Int64? = nil,
        attempts: Int = 1,
        transportError: APNsError? = nil
    ) {
        self.deviceToken = deviceToken
        self.sent = sent
        self.reason = reason
        self.status = status
        self.apnsID = apnsID
        self.unregisteredAt = unregisteredAt
        self.attempts = attempts
        self.transportError = transportError
    }

    /// True when the token should be deleted (`BadDeviceToken`, `Unregistered`; contract/apns.md §4).
    public var isPermanentlyInvalidToken: Bool { !sent && (reason?.isPermanentlyInvalidToken ?? false) }

    /// `sent`, `rejected` (Apple said no) or `failed` (no answer): the metric outcome label.
    public var outcome: String { sent ? "sent" : (status != nil ? "rejected" : "failed") }

    /// The result as JSON: `token`, `sent`, `reason` (null when none), `status` (null when no
    /// answer), `apns_id`, `timestamp` (410 only), `permanent`, `attempts`, and `error` (the
    /// transport error code) when no answer came.
    public var json: JSONObject {
        var object = JSONObject()
        object["token"] = .string(deviceToken)
        object["sent"] = .bool(sent)
        object["reason"] = reason.map { .string($0.name) } ?? .null
        object["status"] = status.map { .number(JSONNumber($0)) } ?? .null
        object["apns_id"] = .string(apnsID)
        if let unregisteredAt { object["timestamp"] = .number(JSONNumber(unregisteredAt)) }
        object["permanent"] = .bool(isPermanentlyInvalidToken)
        object["attempts"] = .number(JSONNumber(attempts))
        if let transportError {
            object["error"] = .string(transportError.code.description)
            object["detail"] = .string(transportError.reason)
        }
        return object
    }
}
