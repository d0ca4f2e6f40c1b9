import AppNativeHTTP
import AppNativeJSON

/// A complete response the routes send: status, headers and body (JSON unless empty).
struct NativeAnswer: Sendable {
    var status: Int
    var headers = HTTPHeaders()
    var body: [UInt8] = []

    static func json(_ status: Int, _ value: JSONValue, headers: HTTPHeaders = HTTPHeaders()) -> NativeAnswer {
        json(status, JSONSerializer.serialize(value), headers: headers)
    }

    static func json(_ status: Int, _ bytes: [UInt8], headers: HTTPHeaders = HTTPHeaders()) -> NativeAnswer {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return NativeAnswer(status: status, headers: headers, body: bytes)
    }

    /// `{"detail": detail}` (contract/routes.md §0, the HTTPException shape).
    static func detail(_ status: Int, _ detail: JSONValue, headers: HTTPHeaders = HTTPHeaders()) -> NativeAnswer {
        json(status, .object(JSONObject([("detail", detail)])), headers: headers)
    }

    static let ok = json(200, Array(#"{"ok":true}"#.utf8))
    static let noContent = NativeAnswer(status: 204)
    static let notFound = detail(404, "Not Found")
    static let badRequest = detail(400, "Bad Request")
    static let internalError = detail(500, "Internal Server Error")
    static let bodyTooLarge = detail(413, "Request body too large")
    static let documentTooLarge = detail(413, "Document too large")
    static let malformedMultipart = detail(400, "There was an error parsing the body")

    static func methodNotAllowed(allow: String) -> NativeAnswer {
        detail(405, "Method Not Allowed", headers: ["Allow": allow])
    }

    /// `{"ok":true}` plus the callback's reference by the table of contract/routes.md §2.8: a non-empty
    /// string or an integer becomes `id`; an object's `id` member follows the same rule (one
    /// level); anything else gives no `id`.
    static func document(reference: JSONValue?) -> NativeAnswer {
        func id(_ value: JSONValue, isNested: Bool) -> JSONValue? {
            switch value {
            case .string(let text) where !text.isEmpty: value
            case .number(let number) where number.isInteger: value
            case .object(let object) where !isNested: object["id"].flatMap { id($0, isNested: true) }
            default: nil
            }
        }
        var members: [(String, JSONValue)] = [("ok", .bool(true))]
        if let reference, let id = id(reference, isNested: false) { members.append(("id", id)) }
        return json(200, .object(JSONObject(members)))
    }
}
