internal import AppNativeJSON

/// Reads the members of one JSON object for a model, reporting missing and ill-typed members.
///
/// Unknown members are ignored (`contract/routes.md` §0). For camelCase models a member is looked up
/// under its camelCase name first, then under its snake_case spelling (`contract/models.md` §0).
struct ObjectReader {
    let object: JSONObject
    let path: [PathComponent]
    let context: DecodingContext
    let keyStyle: KeyStyle
    /// Issue count when this object was entered: the model is clean when none were added since.
    let start: Int

    init(object: JSONObject, path: [PathComponent], context: DecodingContext, keyStyle: KeyStyle) {
        self.object = object
        self.path = path
        self.context = context
        self.keyStyle = keyStyle
        start = context.issueCount
    }

    /// Whether nothing inside this object (nested values included) has been reported.
    var isClean: Bool { context.issueCount == start }

    /// The member named `key` and the spelling it was found under.
    func lookup(_ key: String) -> (value: JSONValue, key: String)? {
        if let value = object[key] { return (value, key) }
        if keyStyle == .camelCase {
            let snake = KeyStyle.snakeCase(key)
            if snake != key, let value = object[snake] { return (value, snake) }
        }
        return nil
    }

    /// Whether the member is present (even as `null`).
    func contains(_ key: String) -> Bool { lookup(key) != nil }

    /// Whether the member is absent or `null`: both mean "not given" for optional members.
    func isAbsentOrNull(_ key: String) -> Bool { lookup(key)?.value.isNull ?? true }

    func cursor(_ key: String) -> Cursor? {
        guard let (value, found) = lookup(key) else { return nil }
        return Cursor(value: value, path: path + [.key(found)], context: context)
    }

    /// A member that must be present; `null` is decoded (and refused) by `decode`.
    func required<T>(_ key: String, _ decode: (Cursor) -> T?) -> T? {
        guard let cursor = cursor(key) else {
            context.report(path + [.key(key)], "missing", "Field required", input: .object(object))
            return nil
        }
        return decode(cursor)
    }

    /// A member that may be absent or `null` (both read as `nil`).
    func optional<T>(_ key: String, _ decode: (Cursor) -> T?) -> T? {
        guard let cursor = cursor(key), !cursor.value.isNull else { return nil }
        return decode(cursor)
    }

    /// A member that may be absent but not `null` (fields with a non-null default).
    func nonNull<T>(_ key: String, _ decode: (Cursor) -> T?) -> T? {
        guard let cursor = cursor(key) else { return nil }
        return decode(cursor)
    }

    /// A member whose absence, `null` and value mean three different things.
    func reported<T>(_ key: String, _ decode: (Cursor) -> T?) -> Reported<T> {
        guard let cursor = cursor(key) else { return .absent }
        if cursor.value.isNull { return .cleared }
        return decode(cursor).map { .set($0) } ?? .absent
    }

    func invalid(_ key: String?, _ message: String, input: JSONValue? = nil) {
        context.invalid(key.map { path + [.key(lookup($0)?.key ?? $0)] } ?? path, message, input: input)
    }

    func tooLarge(_ key: String?, _ message: String, input: JSONValue? = nil) {
        context.tooLarge(key.map { path + [.key(lookup($0)?.key ?? $0)] } ?? path, message, input: input)
    }
}
