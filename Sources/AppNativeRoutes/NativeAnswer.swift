import AppNativeHTTP
import AppNativeJSON
import AppNativeModels

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

    /// `{"ok":true}` plus the callback's reference, by ``DocumentReceipt``'s rule (contract/routes.md §2.8).
    static func document(reference: JSONValue?) -> NativeAnswer {
        json(200, DocumentReceipt.body(for: reference))
    }
}
