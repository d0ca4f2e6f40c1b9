internal import AppNativeJSON

/// Builds a model's JSON object: `nil` members are left out, defaults follow the encoding mode.
struct ObjectWriter {
    let encoding: ModelEncoding
    private(set) var members: [(String, JSONValue)] = []

    init(_ encoding: ModelEncoding) { self.encoding = encoding }

    var value: JSONValue { .object(JSONObject(members)) }

    mutating func set(_ key: String, _ value: JSONValue?) {
        if let value { members.append((key, value)) }
    }

    mutating func set(_ key: String, _ value: String?) { set(key, value.map(JSONValue.string)) }
    mutating func set(_ key: String, _ value: Bool?) { set(key, value.map(JSONValue.bool)) }
    mutating func set(_ key: String, _ value: Int?) { set(key, value.map { JSONValue.number(JSONNumber($0)) }) }
    mutating func set(_ key: String, _ value: JSONNumber?) { set(key, value.map(JSONValue.number)) }
    mutating func set(_ key: String, _ value: JSONObject?) { set(key, value.map(JSONValue.object)) }
    mutating func set(_ key: String, _ value: [JSONObject]?) { set(key, value.map { .array($0.map(JSONValue.object)) }) }
    mutating func set(_ key: String, _ value: [String]?) { set(key, value.map { .array($0.map(JSONValue.string)) }) }
    mutating func set<T: WireEnum>(_ key: String, _ value: T?) { set(key, value.map { JSONValue.string($0.rawValue) }) }
    mutating func set(_ key: String, _ value: (some ModelEncodable)?) { set(key, value.map { $0.jsonValue(encoding) }) }
    mutating func set(_ key: String, _ value: [some ModelEncodable]?) {
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
