internal import AppNativeJSON

/// Builds a model's JSON object: `nil` members are left out, defaults follow the encoding mode.
/// In `.forwarded` encoding the app's own keys decide: a key it did not send is left out, a sent
/// key the model holds as `nil` is written `null`.
struct ObjectWriter {
    let encoding: ModelEncoding
    private(set) var members: [(String, JSONValue)] = []

    init(_ encoding: ModelEncoding) { self.encoding = encoding }

    var value: JSONValue { .object(JSONObject(members)) }

    mutating func set(_ key: String, _ value: JSONValue?) {
        if case .forwarded(let sentKeys) = encoding {
            if sentKeys.contains(key) { members.append((key, value ?? .null)) }
            return
        }
        if let value { members.append((key, value)) }
    }

    /// The encoding of nested models: the sent keys name the top-level object's members only.
    private var nestedEncoding: ModelEncoding {
        if case .forwarded = encoding { return .presentKeysOnly }
        return encoding
    }

    private var isForwarded: Bool {
        if case .forwarded = encoding { return true }
        return false
    }

    mutating func set(_ key: String, _ value: String?) { set(key, value.map(JSONValue.string)) }
    mutating func set(_ key: String, _ value: Bool?) { set(key, value.map(JSONValue.bool)) }
    mutating func set(_ key: String, _ value: Int?) { set(key, value.map { JSONValue.number(JSONNumber($0)) }) }
    mutating func set(_ key: String, _ value: JSONNumber?) { set(key, value.map(JSONValue.number)) }
    /// An opaque object (`dict[str, Any]`): forwarded with its numbers as Python read them.
    mutating func set(_ key: String, _ value: JSONObject?) {
        set(key, value.map { JSONValue.object(isForwarded ? PythonNumberText.opaque($0) : $0) })
    }
    /// A `float` field: its literal, except in `.forwarded` encoding, where it is written as a
    /// Python float (`12` → `12.0`).
    mutating func set(_ key: String, float value: JSONNumber?) {
        set(key, value.map { isForwarded ? PythonNumberText.float($0) : $0 })
    }
    mutating func set(_ key: String, _ value: [JSONObject]?) { set(key, value.map { .array($0.map(JSONValue.object)) }) }
    mutating func set(_ key: String, _ value: [String]?) { set(key, value.map { .array($0.map(JSONValue.string)) }) }
    mutating func set<T: WireEnum>(_ key: String, _ value: T?) { set(key, value.map { JSONValue.string($0.rawValue) }) }
    mutating func set(_ key: String, _ value: (some ModelEncodable)?) {
        let encoding = nestedEncoding
        set(key, value.map { $0.jsonValue(encoding) })
    }
    mutating func set(_ key: String, _ value: [some ModelEncodable]?) {
        let encoding = nestedEncoding
        set(key, value.map { .array($0.map { $0.jsonValue(encoding) }) })
    }

    /// A member with a non-null default: written as `value ?? fallback` in `.response`
    /// encoding, and only when set in `.presentKeysOnly`.
    mutating func set(_ key: String, _ value: String?, default fallback: String) {
        set(key, encoding == .response ? value ?? fallback : value)
    }
    mutating func set(_ key: String, _ value: Bool?, default fallback: Bool) {
        set(key, encoding == .response ? value ?? fallback : value)
    }
    mutating func set(_ key: String, _ value: Int?, default fallback: Int) {
        set(key, encoding == .response ? value ?? fallback : value)
    }
    mutating func set<T: WireEnum>(_ key: String, _ value: T?, default fallback: T) {
        set(key, encoding == .response ? value ?? fallback : value)
    }
    mutating func set(_ key: String, _ value: [some ModelEncodable]?, defaultEmpty: Void) {
        if let value {
            set(key, value)
        } else if encoding == .response {
            set(key, JSONValue.array([]))
        }
    }
    mutating func set(_ key: String, _ value: JSONObject?, defaultEmpty: Void) {
        set(key, encoding == .response ? value ?? JSONObject() : value)
    }
}

extension ObjectWriter {
    /// The members every callback result starts with (`ok` written only when not `true`).
    mutating func setResult(ok: Bool?, message: String?, style: ResultStyle?) {
        set("ok", ok, default: true)
        set("message", message)
        set("style", style)
    }
}
