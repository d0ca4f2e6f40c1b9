public import AppNativeJSON

/// One broken rule, shaped like one element of FastAPI's 422 `detail` array (`contract/routes.md` §0).
public struct ValidationIssue: Sendable, Hashable, CustomStringConvertible {
    /// Whether a rule is a size limit or a shape rule (`contract/models.md` §3 "L" vs "I").
    public enum Kind: Sendable, Hashable {
        /// The value is malformed or breaks a shape rule.
        case invalid
        /// The value is well-formed but exceeds a `MAX_*` limit.
        case tooLarge
    }

    /// Where the problem is, from the root of the decoded value (not including `"body"`).
    public let path: [PathComponent]
    /// The human-readable rule, in FastAPI/pydantic wording where one exists.
    public let message: String
    /// The machine-readable rule (`missing`, `string_type`, `literal_error`, `too_large`, …).
    public let type: String
    /// Limit or shape.
    public let kind: Kind
    /// The offending value, echoed in the 422 body as FastAPI does; `nil` when there is none.
    public let input: JSONValue?
    /// The rule's parameters, FastAPI's `ctx` (`{"le": 90.0}`, `{"error": …}`); `nil` when the rule has none.
    public let context: JSONValue?

    /// Creates an issue.
    public init(
        path: [PathComponent], message: String, type: String, kind: Kind = .invalid, input: JSONValue?,
        context: JSONValue? = nil
    ) {
        self.path = path
        self.message = message
        self.type = type
        self.kind = kind
        self.input = input
        self.context = context
    }

    /// The path as `a.b[2].c`, or `(root)`, for logs, metric labels and test messages.
    ///
    /// Some keys are chosen by the client (table cell keys, `values` field ids), so each key is
    /// cut to 64 characters and control characters become `?`: a path never breaks a log line.
    public var pathDescription: String {
        var text = ""
        for component in path {
            switch component {
            case .key(let rawKey):
                let key = String(String.UnicodeScalarView(rawKey.unicodeScalars.prefix(64).map {
                    $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) ? "?" : $0
                }))
                text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text.isEmpty ? "(root)" : text
    }

    /// `path: type (message)`.
    public var description: String { "\(pathDescription): \(type) (\(message))" }

    /// The FastAPI `detail` element: `{"type", "loc", "msg", "input", "ctx"}` (`ctx` only when the
    /// rule has parameters); `loc` starts with
    /// `root` (`"body"` for request bodies).
    public func detailElement(root: String?) -> JSONValue {
        var loc: [JSONValue] = root.map { [.string($0)] } ?? []
        for component in path {
            switch component {
            case .key(let key): loc.append(.string(key))
            case .index(let index): loc.append(.number(JSONNumber(index)))
            }
        }
        var members: [(String, JSONValue)] = [("type", .string(type)), ("loc", .array(loc)), ("msg", .string(message))]
        if let input { members.append(("input", input)) }
        if let context { members.append(("ctx", context)) }
        return .object(JSONObject(members))
    }
}
