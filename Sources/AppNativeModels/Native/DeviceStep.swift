public import AppNativeJSON

/// A `device` step: a native action with its payload (`contract/models.md` §3.3).
public struct DeviceStep: Sendable, Hashable, ModelEncodable {
    /// The device actions the app knows.
    public enum Action: String, Sendable, Hashable, CaseIterable, WireEnum {
        case navigate, callPhone, saveContact, addReminder
    }

    public var action: Action
    /// The other members, passed to the device action as they are.
    public var payload: JSONObject

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(action: Action, payload: JSONObject = [:]) {
        self.action = action
        self.payload = payload
    }

    /// `action` first, then the payload members.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var object = JSONObject([("action", .string(action.rawValue))])
        for (key, value) in payload where key != "action" { object[key] = value }
        return .object(object)
    }
}

extension DeviceStep: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let action = reader.required("action") { $0.enumeration(Action.self) }
        guard reader.isClean, let action else { return nil }
        var payload = reader.object
        payload["action"] = nil
        self.init(action: action, payload: payload)
    }
}
