package import AppNativeHTTP
package import AppNativeJSON
package import AppNativeModels

/// The answers of the native routes (contract/routes.md §0, §1, §3), for every server of the
/// routes: ``NativeRoutes`` and the gateway's mediation build them here.
extension CompleteResponse {
    /// A JSON document (`Content-Type: application/json`).
    package static func json(_ status: Int, _ document: [UInt8], headers: HTTPHeaders = HTTPHeaders()) -> CompleteResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return CompleteResponse(status: status, headers: headers, body: document)
    }

    /// `value` serialised as a JSON document.
    package static func json(_ status: Int, _ value: JSONValue, headers: HTTPHeaders = HTTPHeaders()) -> CompleteResponse {
        json(status, JSONSerializer.serialize(value), headers: headers)
    }

    /// `{"detail": detail}` (contract/routes.md §0, the HTTPException shape).
    package static func detail(_ status: Int, _ detail: JSONValue, headers: HTTPHeaders = HTTPHeaders()) -> CompleteResponse {
        json(status, .object(JSONObject([("detail", detail)])), headers: headers)
    }

    /// A body the contract's models refuse: their status (422, or 413) and their `detail` listing
    /// every error with its path.
    package static func refusal(_ error: ModelError) -> CompleteResponse {
        json(error.httpStatus, error.responseBytes())
    }

    package static let ok = json(200, Array(#"{"ok":true}"#.utf8))
    package static let noContent = CompleteResponse(status: 204)
    package static let notFound = detail(404, "Not Found")
    package static let badRequest = detail(400, "Bad Request")
    package static let internalError = detail(500, "Internal Server Error")
    package static let bodyTooLarge = detail(413, "Request body too large")
    package static let documentTooLarge = detail(413, "Document too large")

    package static func methodNotAllowed(allow: String) -> CompleteResponse {
        detail(405, "Method Not Allowed", headers: ["Allow": allow])
    }

    /// `{"ok":true}` plus the reference, by ``DocumentReceipt``'s rule (contract/routes.md §2.8).
    package static func document(reference: JSONValue?) -> CompleteResponse {
        json(200, DocumentReceipt.body(for: reference))
    }
}
