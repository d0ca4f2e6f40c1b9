import AppNativeCore
import AppNativeJSON

/// Reads the token endpoint's answer: a successful response (RFC 6749 §5.1, OpenID Connect Core
/// §3.1.3.3) or an error response (RFC 6749 §5.2). Nothing of the body but the `error` code
/// leaves this type, and that only when it is a plain token.
enum TokenEndpointResponse {
    static func answer(status: Int, body: [UInt8]) throws(SignInProviderError) -> TokenEndpointAnswer {
        guard status == 200 else {
            throw .refused(status: status, oauthError: oauthError(in: body))
        }
        guard let object = parseObject(body) else {
            throw .malformed(reason: "token endpoint answer is not a JSON object")
        }
        guard let entry = object["id_token"] else {
            throw .malformed(reason: "token endpoint answer has no id_token")
        }
        guard let idToken = entry.stringValue, !idToken.isEmpty else {
            throw .malformed(reason: "token endpoint answer's id_token is not a non-empty string")
        }
        return TokenEndpointAnswer(idToken: Secret(idToken))
    }

    /// The `error` member of an error answer, when the body is a JSON object and the value a plain
    /// token: RFC 6749 §5.2 limits it to printable ASCII; here only letters, digits, `_`, `-`, `.`
    /// (every registered code) up to 64 bytes pass, so nothing a provider echoes reaches a log.
    static func oauthError(in body: [UInt8]) -> String? {
        guard let code = parseObject(body)?["error"]?.stringValue, !code.isEmpty, code.utf8.count <= 64 else { return nil }
        let isPlain = code.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                true
            default:
                false
            }
        }
        return isPlain ? code : nil
    }

    private static func parseObject(_ body: [UInt8]) -> JSONObject? {
        var options = JSONParser.Options()
        options.maxBytes = TokenEndpointClient.maxAnswerBytes
        options.maxDepth = 16
        return (try? JSONParser(options: options).parse(body))?.objectValue
    }
}
