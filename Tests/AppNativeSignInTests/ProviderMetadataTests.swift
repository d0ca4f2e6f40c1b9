import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import AppNativeSignIn
import Testing

@Suite("Provider metadata")
struct ProviderMetadataTests {
    static let issuer = "https://login.microsoftonline.com/d0d0d0d0-0000-4000-8000-00000000de01/v2.0"
    static let discoveryURL = issuer + "/.well-known/openid-configuration"

    /// The members of Entra ID's v2.0 document that matter here, in its shape (no
    /// `code_challenge_methods_supported`).
    static func entraLike() -> JSONObject {
        let tenantRoot = "https://login.microsoftonline.com/d0d0d0d0-0000-4000-8000-00000000de01"
        var document = JSONObject()
        document["token_endpoint"] = .string(tenantRoot + "/oauth2/v2.0/token")
        document["token_endpoint_auth_methods_supported"] = .array(["client_secret_post", "private_key_jwt", "client_secret_basic"].map(JSONValue.string))
        document["jwks_uri"] = .string("https://login.microsoftonline.com/d0d0d0d0-0000-4000-8000-00000000de01/discovery/v2.0/keys")
        document["response_modes_supported"] = .array(["query", "fragment", "form_post"].map(JSONValue.string))
        document["subject_types_supported"] = .array([.string("pairwise")])
        document["id_token_signing_alg_values_supported"] = .array([.string("RS256")])
        document["response_types_supported"] = .array(["code", "id_token", "code id_token", "id_token token"].map(JSONValue.string))
        document["scopes_supported"] = .array(["openid", "profile", "email", "offline_access"].map(JSONValue.string))
        document["issuer"] = .string(issuer)
        document["authorization_endpoint"] = .string(tenantRoot + "/oauth2/v2.0/authorize")
        document["end_session_endpoint"] = .string(tenantRoot + "/oauth2/v2.0/logout")
        return document
    }

    static func validate(_ document: JSONObject, expectedIssuer: String? = issuer) throws(SignInProviderError) -> ProviderMetadata {
        try ProviderMetadata.validated(discoveryDocument: JSONSerializer.serialize(.object(document)), expectedIssuer: expectedIssuer)
    }

    static func reason(_ body: () throws(SignInProviderError) -> ProviderMetadata) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            guard case .malformed(let reason) = error else { return "unexpected \(error)" }
            return reason
        }
    }

    @Test func entraDocumentIsAccepted() throws {
        let metadata = try Self.validate(Self.entraLike())
        #expect(metadata.issuer == Self.issuer)
        #expect(metadata.authorizationEndpoint.hasSuffix("/oauth2/v2.0/authorize"))
        #expect(metadata.tokenEndpoint.hasSuffix("/oauth2/v2.0/token"))
        #expect(metadata.jwksURI.hasSuffix("/discovery/v2.0/keys"))
        #expect(metadata.endSessionEndpoint?.hasSuffix("/oauth2/v2.0/logout") == true)
    }

    @Test func endSessionEndpointIsOptional() throws {
        var document = Self.entraLike()
        document["end_session_endpoint"] = nil
        #expect(try Self.validate(document).endSessionEndpoint == nil)
    }

    /// RFC 9207 §3: `authorization_response_iss_parameter_supported`, absent (Entra) or false:
    /// not required; true: required; anything but a boolean: refused.
    @Test func issuerParameterSupport() throws {
        #expect(try Self.validate(Self.entraLike()).sendsIssuerParameter == false)
        var document = Self.entraLike()
        document["authorization_response_iss_parameter_supported"] = .bool(true)
        #expect(try Self.validate(document).sendsIssuerParameter == true)
        document["authorization_response_iss_parameter_supported"] = .bool(false)
        #expect(try Self.validate(document).sendsIssuerParameter == false)
        document["authorization_response_iss_parameter_supported"] = .string("true")
        #expect(Self.reason { () throws(SignInProviderError) in try Self.validate(document) }?.contains("not a boolean") == true)
    }

    @Test(arguments: ["issuer", "authorization_endpoint", "token_endpoint", "jwks_uri"])
    func requiredMemberMissingIsRefused(member: String) {
        var document = Self.entraLike()
        document[member] = nil
        #expect(Self.reason { () throws(SignInProviderError) in try Self.validate(document) } == "discovery document has no \(member)")
    }

    @Test(arguments: ["issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "end_session_endpoint"])
    func memberOfWrongTypeIsRefused(member: String) {
        var document = Self.entraLike()
        document[member] = .number(JSONNumber(1))
        #expect(Self.reason { () throws(SignInProviderError) in try Self.validate(document) } == "discovery \(member) is not a string")
    }

    @Test(arguments: [
        "http://login.example.com/authorize",  // plain http off loopback
        "ftp://login.example.com/authorize",
        "https://user:pass@login.example.com/authorize",
        "https://login.example.com/authorize#fragment",
        "/relative/authorize",
        "",
        "https://login.example.com/a b",
        "https://login.example.com/\u{00e9}",
    ])
    func unsafeEndpointIsRefused(url: String) {
        var document = Self.entraLike()
        document["authorization_endpoint"] = .string(url)
        let reason = Self.reason { () throws(SignInProviderError) in try Self.validate(document) }
        #expect(reason?.hasPrefix("discovery authorization_endpoint") == true, "\(url): \(reason ?? "accepted")")
        #expect(reason?.contains(url.isEmpty ? "\u{0}" : url) == false, "the reason must not echo the document")
    }

    @Test func plainHTTPOnLoopbackIsAccepted() throws {
        let base = "http://127.0.0.1:8123"
        var document = JSONObject()
        document["issuer"] = .string(base)
        document["authorization_endpoint"] = .string(base + "/authorize")
        document["token_endpoint"] = .string(base + "/token")
        document["jwks_uri"] = .string("http://[::1]:8123/keys")
        let metadata = try Self.validate(document, expectedIssuer: base)
        #expect(metadata.tokenEndpoint == base + "/token")
    }

    @Test func issuerWithQueryIsRefused() {
        var document = Self.entraLike()
        document["issuer"] = .string(Self.issuer + "?x=1")
        #expect(Self.reason { () throws(SignInProviderError) in try Self.validate(document, expectedIssuer: nil) } == "discovery issuer has a query")
    }

    @Test func anotherIssuerThanTheURLsIsRefused() {
        var document = Self.entraLike()
        document["issuer"] = .string("https://login.microsoftonline.com/e0e0e0e0-0000-4000-8000-0000000000e2/v2.0")
        let reason = Self.reason { () throws(SignInProviderError) in try Self.validate(document) }
        #expect(reason == "discovery document names another issuer than the one its URL was built from")
    }

    @Test func capabilityListsAreCheckedWhenPresent() {
        var noCode = Self.entraLike()
        noCode["response_types_supported"] = .array([.string("id_token")])
        #expect(Self.reason { () throws(SignInProviderError) in try Self.validate(noCode) } == "discovery response_types_supported does not list code")
        var plainPKCE = Self.entraLike()
        plainPKCE["code_challenge_methods_supported"] = .array([.string("plain")])
        #expect(Self.reason { () throws(SignInProviderError) in try Self.validate(plainPKCE) } == "discovery code_challenge_methods_supported does not list S256")
        var notStrings = Self.entraLike()
        notStrings["code_challenge_methods_supported"] = .string("S256")
        #expect(Self.reason { () throws(SignInProviderError) in try Self.validate(notStrings) } == "discovery code_challenge_methods_supported is not a list of strings")
        var noRS256 = Self.entraLike()
        noRS256["id_token_signing_alg_values_supported"] = .array([.string("ES256")])
        #expect(Self.reason { () throws(SignInProviderError) in try Self.validate(noRS256) } == "discovery id_token_signing_alg_values_supported does not list RS256")
    }

    @Test func notJSONOrNotAnObjectIsRefused() {
        for body in ["<html>", "[]", "\"x\"", ""] {
            let reason = Self.reason { () throws(SignInProviderError) in
                try ProviderMetadata.validated(discoveryDocument: Array(body.utf8), expectedIssuer: nil)
            }
            #expect(reason?.hasPrefix("discovery document is not") == true, "\(body): \(reason ?? "accepted")")
        }
    }

    @Test func oversizedDocumentIsRefused() {
        var document = Self.entraLike()
        document["padding"] = .string(String(repeating: "x", count: ProviderMetadata.maxDocumentBytes))
        #expect(Self.reason { () throws(SignInProviderError) in try Self.validate(document) }?.hasPrefix("discovery document larger than") == true)
    }

    // MARK: The fetcher

    @Test func fetcherSendsTheOutboundRulesAndValidates() async throws {
        let fetcher = CannedFetcher(body: JSONSerializer.string(.object(Self.entraLike())))
        let metadata = try await HTTPProviderMetadataFetcher(discoveryURL: Self.discoveryURL, client: fetcher).fetchMetadata()
        #expect(metadata.issuer == Self.issuer)
        let request = try #require(fetcher.requests.first)
        #expect(request.method == "GET")
        #expect(request.url == Self.discoveryURL)
        #expect(!request.followsRedirects)
        #expect(request.proxyURL == nil)
        #expect(request.maxResponseBytes == ProviderMetadata.maxDocumentBytes)
        #expect(request.headers.contains { $0.name == "Accept" && $0.value == "application/json" })
    }

    @Test func entraDefaultURLIsBuiltFromHostAndTenant() throws {
        let entra = try EntraConfiguration(
            tenantID: "D0D0D0D0-0000-4000-8000-00000000DE01", audiences: ["x"], authorityHost: "login.microsoftonline.us")
        let fetcher = try HTTPProviderMetadataFetcher(entra: entra)
        #expect(fetcher.discoveryURL == "https://login.microsoftonline.us/d0d0d0d0-0000-4000-8000-00000000de01/v2.0/.well-known/openid-configuration")
        #expect(fetcher.expectedIssuer == "https://login.microsoftonline.us/d0d0d0d0-0000-4000-8000-00000000de01/v2.0")
    }

    @Test func fetcherRefusesUnsafeURLs() {
        #expect(throws: ClientError(.insecureScheme, reason: "")) { try HTTPProviderMetadataFetcher(discoveryURL: "http://login.example.com/x") }
        #expect(throws: ClientError(.invalidURL, reason: "")) { try HTTPProviderMetadataFetcher(discoveryURL: "https://u:p@login.example.com/x") }
    }

    @Test func fetcherMapsStatusesAndTransportFailures() async throws {
        let redirect = CannedFetcher(.response(HTTPResponse(status: 302, headers: [HTTPHeaderField(name: "Location", value: "https://evil.example/")])))
        await #expect(throws: SignInProviderError.refused(status: 302, oauthError: nil)) {
            try await HTTPProviderMetadataFetcher(discoveryURL: Self.discoveryURL, client: redirect).fetchMetadata()
        }
        let timeout = CannedFetcher(.failure(ClientError(.timeout, reason: "timed out")))
        await #expect(throws: SignInProviderError.unreachable(reason: "discovery document: timeout")) {
            try await HTTPProviderMetadataFetcher(discoveryURL: Self.discoveryURL, client: timeout).fetchMetadata()
        }
        let huge = CannedFetcher(.failure(ClientError(.responseTooLarge, reason: "too large")))
        await #expect(throws: SignInProviderError.malformed(reason: "discovery document larger than the size limit")) {
            try await HTTPProviderMetadataFetcher(discoveryURL: Self.discoveryURL, client: huge).fetchMetadata()
        }
    }
}
