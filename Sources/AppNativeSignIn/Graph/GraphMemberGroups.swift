public import AppNativeClient
public import AppNativeCore
import AppNativeJSON

/// Microsoft Graph's `getMemberGroups` for a user (Microsoft Graph v1.0 reference, "directoryObject:
/// getMemberGroups"): `POST {GRAPH_URL}/v1.0/users/{id}/getMemberGroups` with
/// `{"securityEnabledOnly": false}` and the application token; the answer's `value` is the ids of
/// every group the user is a member of, directly or transitively (at most 11,000: beyond that
/// Graph answers `Directory_ResultSizeLimitExceeded`).
public enum GraphMemberGroups: Sendable {
    /// The largest answer read: 11,000 ids of 36 characters with their quotes and commas fit
    /// about twice over.
    public static let maxAnswerBytes = 1 << 20
    /// The most ids Graph returns.
    public static let maxGroups = 11_000
    /// The longest group id accepted (Entra's are 36-character GUIDs).
    public static let maxGroupIDBytes = 128

    /// What Graph answered.
    public enum Answer: Sendable, Equatable {
        /// The user's groups.
        case groups([String])
        /// 429 (or 503) with `Retry-After`: no call before that many seconds pass.
        case throttled(retryAfterSeconds: Int)
        /// Another status; `code` is Graph's `error.code` (`Authorization_RequestDenied`,
        /// `Request_ResourceNotFound`, …) when it is a plain token.
        case refused(status: Int, code: String?)
        /// A 200 that is not the documented shape, or too large.
        case malformed(reason: String)
    }

    /// The request for the user `objectID`, or `nil` when the id is not one Graph could name
    /// (only letters, digits and `-`, at most 64: an Entra object id is a GUID).
    public static func request(
        graphURL: String, objectID: String, applicationToken: Secret<String>, timeout: Duration, caFile: String? = nil
    ) -> HTTPRequest? {
        guard isPlainID(objectID, maxBytes: 64, allowsPunctuation: false) else { return nil }
        let base = graphURL.hasSuffix("/") ? String(graphURL.dropLast()) : graphURL
        return HTTPRequest.identityServiceJSON(
            url: base + "/v1.0/users/" + objectID + "/getMemberGroups", method: "POST",
            headers: [
                HTTPHeaderField(name: "Content-Type", value: "application/json"),
                HTTPHeaderField(name: "Authorization", value: "Bearer " + applicationToken.revealed),
            ],
            body: Array(#"{"securityEnabledOnly":false}"#.utf8), timeout: timeout, connectTimeout: min(timeout, .seconds(5)),
            maxResponseBytes: maxAnswerBytes, caFile: caFile)
    }

    /// Reads Graph's answer strictly: a 200 must be a JSON object whose `value` is an array of at
    /// most `maxGroups` strings, each a plain id (letters, digits, `-`, `_`, `.`) of at most
    /// `maxGroupIDBytes`; any other byte is `malformed`, never a trap. Pure, for tests and fuzzing.
    public static func answer(status: Int, headers: [HTTPHeaderField], body: [UInt8]) -> Answer {
        if status == 429 || status == 503, let seconds = RetryAfter.seconds(in: headers) {
            return .throttled(retryAfterSeconds: seconds)
        }
        guard status == 200 else { return .refused(status: status, code: errorCode(in: body)) }
        guard let object = parse(body)?.objectValue else { return .malformed(reason: "Graph answer is not a JSON object") }
        guard let values = object["value"]?.arrayValue else { return .malformed(reason: "Graph answer has no value array") }
        guard values.count <= maxGroups else { return .malformed(reason: "Graph answer lists more than \(maxGroups) groups") }
        var groups: [String] = []
        groups.reserveCapacity(values.count)
        for value in values {
            guard let id = value.stringValue, isPlainID(id, maxBytes: maxGroupIDBytes) else {
                return .malformed(reason: "Graph answer's value holds an entry that is not a group id")
            }
            groups.append(id)
        }
        return .groups(groups)
    }

    /// Graph's `error.code` when it is a plain token of at most 64 bytes.
    static func errorCode(in body: [UInt8]) -> String? {
        guard let code = parse(body)?.objectValue?["error"]?.objectValue?["code"]?.stringValue, isPlainID(code, maxBytes: 64)
        else { return nil }
        return code
    }

    private static func parse(_ body: [UInt8]) -> JSONValue? {
        var options = JSONParser.Options()
        options.maxBytes = maxAnswerBytes
        options.maxDepth = 8
        return try? JSONParser(options: options).parse(body)
    }

    private static func isPlainID(_ text: String, maxBytes: Int, allowsPunctuation: Bool = true) -> Bool {
        !text.isEmpty && text.utf8.count <= maxBytes
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"):
                    true
                case UInt8(ascii: "_"), UInt8(ascii: "."): allowsPunctuation
                default: false
                }
            }
    }
}
