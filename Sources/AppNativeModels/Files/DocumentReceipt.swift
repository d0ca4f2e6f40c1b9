public import AppNativeJSON

/// The `POST {p}/documents` response built from what the host callback returned
/// (`contract/routes.md` §2.8): `{"ok":true}` or `{"ok":true,"id":<ref>}`.
///
/// The page receives this `id` for `kind="form"` uploads (else it falls back to the
/// `upload_id`), so only values that can serve as a reference are echoed. The one definition of
/// the rule: `NativeRoutes` applies it to a Swift callback's value, the gateway to its upstream's
/// answer.
public enum DocumentReceipt: Sendable {
    /// The response body for a callback result.
    ///
    /// A non-empty string or an integer (including 0 and negatives) becomes `id`; an object is
    /// replaced by its `"id"` member under the same rule; `nil`, booleans, `""`, fractional
    /// numbers, lists and anything else give just `{"ok":true}`.
    public static func body(for returned: JSONValue?) -> JSONValue {
        var value = returned
        if case .object(let object)? = value { value = object["id"] }
        switch value {
        case .string(let text)? where !text.isEmpty:
            return ["ok": true, "id": .string(text)]
        case .number(let number)? where number.isInteger:
            return ["ok": true, "id": .number(number)]
        default:
            return ["ok": true]
        }
    }
}
