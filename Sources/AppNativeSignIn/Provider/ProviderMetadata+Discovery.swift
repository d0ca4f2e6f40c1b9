import AppNativeClient
import AppNativeJSON

extension ProviderMetadata {
    /// The largest discovery document read (Entra's is under 2 KB; this leaves room for providers
    /// that list many claims and scopes without letting a hostile one hand over megabytes).
    public static let maxDocumentBytes = 256 * 1024

    /// The longest URL accepted for an endpoint or the issuer.
    static let maxURLBytes = 2048

    /// Validates a discovery document (OpenID Connect Discovery 1.0 §3, §4.3).
    ///
    /// Required: `issuer`, `authorization_endpoint`, `token_endpoint` and `jwks_uri`, each a string
    /// naming an `https` URL (plain `http` only for a loopback host), without credentials or a
    /// fragment; the issuer also without a query. `end_session_endpoint` is optional, under the same rules.
    /// `authorization_response_iss_parameter_supported` (RFC 9207 §3), when present, is a boolean.
    ///
    /// Capability lists are checked only when the provider publishes them: `response_types_supported`
    /// must contain `code`, `code_challenge_methods_supported` must contain `S256`, and
    /// `id_token_signing_alg_values_supported` must contain `RS256` (the only algorithm the verifier
    /// accepts). An absent list is not a refusal: Entra ID publishes no `code_challenge_methods_supported`
    /// yet honours S256, and the flow sends PKCE whatever the document says (RFC 9700 §2.1.1).
    ///
    /// - Parameters:
    ///   - bytes: the document.
    ///   - expectedIssuer: when set, `issuer` must equal it exactly (§4.3: the issuer the discovery
    ///     URL was built from), which stops a document from naming another provider (mix-up).
    /// - Throws: `SignInProviderError.malformed` naming the member and the rule it broke; no byte of
    ///   the document enters the reason.
    public static func validated(discoveryDocument bytes: [UInt8], expectedIssuer: String?) throws(SignInProviderError)
        -> ProviderMetadata
    {
        guard bytes.count <= maxDocumentBytes else {
            throw .malformed(reason: "discovery document larger than \(maxDocumentBytes) bytes")
        }
        var options = JSONParser.Options()
        options.maxBytes = maxDocumentBytes
        options.maxDepth = 16
        let value: JSONValue
        do {
            value = try JSONParser(options: options).parse(bytes)
        } catch {
            throw .malformed(reason: "discovery document is not JSON (\(error.code))")
        }
        guard let document = value.objectValue else {
            throw .malformed(reason: "discovery document is not a JSON object")
        }
        let issuer = try url(document, "issuer", allowsQuery: false)
        if let expectedIssuer, issuer != expectedIssuer {
            throw .malformed(reason: "discovery document names another issuer than the one its URL was built from")
        }
        let metadata = ProviderMetadata(
            issuer: issuer,
            authorizationEndpoint: try url(document, "authorization_endpoint", allowsQuery: true),
            tokenEndpoint: try url(document, "token_endpoint", allowsQuery: true),
            jwksURI: try url(document, "jwks_uri", allowsQuery: true),
            endSessionEndpoint: document.contains("end_session_endpoint")
                ? try url(document, "end_session_endpoint", allowsQuery: true) : nil,
            sendsIssuerParameter: try flag(document, "authorization_response_iss_parameter_supported")
        )
        try requireListed("code", in: document, "response_types_supported")
        try requireListed("S256", in: document, "code_challenge_methods_supported")
        try requireListed("RS256", in: document, "id_token_signing_alg_values_supported")
        return metadata
    }

    private static func url(_ document: JSONObject, _ member: String, allowsQuery: Bool) throws(SignInProviderError) -> String {
        guard let entry = document[member] else { throw .malformed(reason: "discovery document has no \(member)") }
        guard let text = entry.stringValue else { throw .malformed(reason: "discovery \(member) is not a string") }
        guard !text.isEmpty, text.utf8.count <= maxURLBytes else {
            throw .malformed(reason: "discovery \(member) is empty or longer than \(maxURLBytes) bytes")
        }
        // Printable ASCII only: a URL here is sent to a browser in a Location field or to libcurl.
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw .malformed(reason: "discovery \(member) holds a character a URL cannot")
        }
        guard !text.utf8.contains(UInt8(ascii: "#")) else {
            throw .malformed(reason: "discovery \(member) has a fragment")
        }
        if !allowsQuery, text.utf8.contains(UInt8(ascii: "?")) {
            throw .malformed(reason: "discovery \(member) has a query")
        }
        do {
            try URLPolicy.validateOutbound(url: text, allowsCleartextOnLoopback: true)
        } catch {
            throw .malformed(reason: "discovery \(member) is not an https URL (plain http only on loopback): \(error.code)")
        }
        return text
    }

    /// An optional boolean member (absent: `false`).
    private static func flag(_ document: JSONObject, _ member: String) throws(SignInProviderError) -> Bool {
        guard let entry = document[member] else { return false }
        guard let value = entry.boolValue else { throw .malformed(reason: "discovery \(member) is not a boolean") }
        return value
    }

    private static func requireListed(_ value: String, in document: JSONObject, _ member: String) throws(SignInProviderError) {
        guard let entry = document[member] else { return }
        guard let list = entry.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
            throw .malformed(reason: "discovery \(member) is not a list of strings")
        }
        guard list.contains(where: { $0.stringValue == value }) else {
            throw .malformed(reason: "discovery \(member) does not list \(value)")
        }
    }
}
