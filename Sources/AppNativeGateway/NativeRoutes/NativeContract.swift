import AppNativeHTTP
import AppNativeJSON
import AppNativeModels
import AppNativeProxy
import AppNativeRoutes

/// The contract checks of the native routes at the gateway: request bodies, the upstream's feeds,
/// results and document references (contract/routes.md §2, §3), each by the route's row of
/// `NativeRoute.contract`.
enum NativeContract {
    /// Why an upstream answer was refused (for the log; never contains request data).
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    struct Feed {
        var document: [UInt8]
        var dropped: [(id: String, path: String, reason: String)]
    }

    /// The body the backend receives for an accepted request (upstream-contract.md): the decoded
    /// model as the reference's callback model writes it (``ModelEncoding/forwarded(sentKeys:)``),
    /// or the answer that refuses the body: 422 listing every error with its path (the size cap
    /// was applied while the body was read).
    static func forwardedRequest(_ model: any (ModelDecodable & ModelEncodable).Type, body: [UInt8]) -> Result<[UInt8], CompleteResponse> {
        let decoder = ModelDecoder(maxBodyBytes: Int.max)
        do throws(ModelError) {
            let value = try decoder.parse(body)
            let encoding = ModelEncoding.forwarded(sentKeys: Set(value.objectValue?.keys ?? []))
            let forwarded = try model.init(json: value).jsonValue(encoding)
            return .success(JSONSerializer.serialize(forwarded))
        } catch {
            return .failure(.json(error.code == .bodyTooLarge ? 413 : 422, error.responseBytes()))
        }
    }

    /// Whether a `Content-Type` makes the reference read a body as JSON: `application/json` or
    /// `application/<subtype>+json`, parameters ignored (FastAPI's rule). Anything else, a missing
    /// field included, leaves the body as bytes, which no request model accepts.
    static func isJSONMediaType(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let parts = MediaType.of(contentType).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "application" else { return false }
        return parts[1] == "json" || (parts[1].hasSuffix("+json") && parts[1].count > "+json".count)
    }

    /// The 422 for a body that did not arrive as JSON: the model met bytes, not an object.
    static func notJSON(body: [UInt8]) -> CompleteResponse {
        let issue: JSONValue = [
            "type": "model_attributes_type",
            "loc": ["body"],
            "msg": "Input should be a valid dictionary or object to extract fields from",
            "input": .string(String(decoding: body, as: UTF8.self)),
        ]
        let detail: JSONValue = ["detail": [issue]]
        return .json(422, detail)
    }

    /// The feed re-serialized by the models (the route's `validate`) with its invalid entries
    /// dropped; `nil` when it is not a feed at all (not JSON, or a broken envelope).
    static func feed(
        upstreamBody: [UInt8], validate: (JSONValue) throws(ModelError) -> NativeRouteContract.ValidatedFeed
    ) -> Feed? {
        guard let value = parse(upstreamBody) else { return nil }
        do throws(ModelError) {
            let validated = try validate(value)
            return Feed(document: JSONSerializer.serialize(validated.feed), dropped: validated.dropped.map(Self.dropped))
        } catch {
            return nil
        }
    }

    private static func dropped(_ element: DroppedFeedElement) -> (id: String, path: String, reason: String) {
        (element.id ?? "#\(element.index)", element.failingPaths.joined(separator: ","), element.issues.map(\.message).joined(separator: "; "))
    }

    /// The result re-serialized by the models (the route's `validate`), or why it is refused. An
    /// empty answer (204, or a 2xx without a body) is the callback's `nil`: `empty`.
    static func result(
        upstreamBody: [UInt8], empty: JSONValue, validate: (JSONValue) throws(ModelError) -> JSONValue
    ) -> Result<[UInt8], Problem> {
        let value: JSONValue
        if upstreamBody.isEmpty {
            value = empty
        } else {
            guard let parsed = parse(upstreamBody) else { return .failure(Problem(description: "the answer is not JSON")) }
            value = parsed
        }
        do throws(ModelError) {
            return .success(JSONSerializer.serialize(try validate(value)))
        } catch {
            let paths = error.issues.prefix(5).map { $0.pathDescription + ": " + $0.message }
            return .failure(Problem(description: paths.joined(separator: "; ")))
        }
    }

    /// `{"ok":true}` plus the upstream's reference by ``DocumentReceipt``'s rule (contract/routes.md
    /// §2.8). A `text/plain` answer is the reference as text, the way the reference echoes a
    /// callback's returned string: its UTF-8 text is the reference (JSON rules do not apply to it).
    static func documentAnswer(upstreamBody: [UInt8], contentType: String?) -> [UInt8] {
        let reference: JSONValue?
        if isTextPlainMediaType(contentType) {
            reference = String(validating: upstreamBody, as: UTF8.self).map(JSONValue.string)
        } else {
            reference = parse(upstreamBody)
        }
        return JSONSerializer.serialize(DocumentReceipt.body(for: reference))
    }

    /// Whether a `Content-Type` is `text/plain`, parameters (a charset) ignored.
    private static func isTextPlainMediaType(_ contentType: String?) -> Bool {
        contentType.map(MediaType.of) == "text/plain"
    }

    private static func parse(_ body: [UInt8]) -> JSONValue? {
        guard !body.isEmpty else { return nil }
        // Unsafe: the parser reads the body only during the call that lends it.
        return unsafe try? body.withUnsafeBytes { bytes throws(JSONError) in unsafe try JSONParser().parse(bytes) }
    }
}
