import AppNativeJSON
import AppNativeProxy

/// The contract checks of the native routes: request bodies, the upstream's feeds and results,
/// and the document reference rules (routes.md §2, §3).
enum NativeContract {
    /// Why an upstream answer was refused (for the log; never contains request data).
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    struct Feed {
        var document: [UInt8]
        var dropped: [(id: String, path: String, reason: String)]
    }

    /// `nil` when the body satisfies the route's request model, else the 422 answer.
    static func validateRequest(_ route: NativeRoute, body: [UInt8]) -> MediatedAnswer? {
        let value: JSONValue
        do {
            value = try body.withUnsafeBytes { bytes throws(JSONError) in try JSONParser().parse(bytes) }
        } catch {
            return unprocessable([["type": "json_invalid", "loc": ["body"], "msg": "JSON decode error"]])
        }
        guard value.objectValue != nil else {
            return unprocessable([["type": "model_attributes_type", "loc": ["body"], "msg": "Input should be a valid dictionary"]])
        }
        return nil
    }

    /// The feed re-serialized with its invalid entries dropped; `nil` when it is not a feed at all.
    static func feed(_ route: NativeRoute, upstreamBody: [UInt8]) -> Feed? {
        guard let value = parse(upstreamBody), value.objectValue != nil else { return nil }
        return Feed(document: JSONSerializer.serialize(value), dropped: [])
    }

    /// The result re-serialized, or why it is refused.
    static func result(_ route: NativeRoute, upstreamBody: [UInt8]) -> Result<[UInt8], Problem> {
        guard let value = parse(upstreamBody) else { return .failure(Problem(description: "not JSON")) }
        return .success(JSONSerializer.serialize(value))
    }

    /// `{"ok":true}` plus the upstream's reference by the rules of routes.md §2.8: a non-empty
    /// string or an integer becomes `id`; an object's `id` member follows the same rules; anything
    /// else (nothing, booleans, "", floats, lists) gives no `id`.
    static func documentAnswer(upstreamBody: [UInt8]) -> [UInt8] {
        guard let value = parse(upstreamBody) else { return Array(#"{"ok":true}"#.utf8) }
        func reference(_ value: JSONValue, nested: Bool) -> JSONValue? {
            switch value {
            case .string(let text) where !text.isEmpty:
                return value
            case .number(let number) where number.isInteger:
                return value
            case .object(let object) where !nested:
                return object["id"].flatMap { reference($0, nested: true) }
            default:
                return nil
            }
        }
        var members: [(String, JSONValue)] = [("ok", .bool(true))]
        if let id = reference(value, nested: false) { members.append(("id", id)) }
        return JSONSerializer.serialize(.object(JSONObject(members)))
    }

    private static func parse(_ body: [UInt8]) -> JSONValue? {
        guard !body.isEmpty else { return nil }
        return try? body.withUnsafeBytes { bytes throws(JSONError) in try JSONParser().parse(bytes) }
    }

    static func unprocessable(_ detail: [JSONValue]) -> MediatedAnswer {
        .json(status: 422, JSONSerializer.serialize(.object(JSONObject([("detail", .array(detail))]))))
    }
}
