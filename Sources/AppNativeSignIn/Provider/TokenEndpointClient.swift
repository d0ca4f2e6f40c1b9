public import AppNativeClient
public import AppNativeCore
import AppNativeHTTP

/// Redeems authorization codes at the provider's token endpoint (RFC 6749 §4.1.3 with the PKCE
/// `code_verifier` of RFC 7636 §4.5): one form-encoded `POST` over libcurl, with a timeout, no
/// redirects followed, a size cap on the answer and no proxy from the environment.
public struct TokenEndpointClient: AuthorizationCodeRedeeming {
    /// The largest answer read: an ID token, an access token and a refresh token fit many times over.
    public static let maxAnswerBytes = 256 * 1024

    public let tokenEndpoint: String
    public let clientID: String
    let credential: ClientCredential
    let scope: String?
    let client: any HTTPFetching
    let caFile: String?
    let timeout: Duration
    let timeSource: any TimeSource

    /// - Parameters:
    ///   - tokenEndpoint: the discovery document's `token_endpoint`.
    ///   - clientID: the app registration's client id (`ENTRA_CLIENT_ID`).
    ///   - credential: how the client authenticates.
    ///   - scope: sent as `scope` when set (Entra ID's v2.0 endpoint takes the sign-in scopes again).
    ///   - client: the transport (a fake in tests).
    ///   - caFile: a PEM bundle to trust instead of the system store.
    ///   - timeout: the limit on the whole exchange.
    ///   - timeSource: the clock stamped into client assertions.
    /// - Throws: `ClientError` (`.invalidURL`, `.insecureScheme`) when the endpoint breaks the outbound rules.
    public init(
        tokenEndpoint: String,
        clientID: String,
        credential: ClientCredential,
        scope: String? = nil,
        client: any HTTPFetching = CurlHTTPClient.shared,
        caFile: String? = nil,
        timeout: Duration = .seconds(10),
        timeSource: any TimeSource = SystemTimeSource()
    ) throws(ClientError) {
        try URLPolicy.validateOutbound(url: tokenEndpoint, allowsCleartextOnLoopback: true)
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.credential = credential
        self.scope = scope
        self.client = client
        self.caFile = caFile
        self.timeout = timeout
        self.timeSource = timeSource
    }

    /// Redeems `redemption`.
    ///
    /// - Throws: `.credential` (the assertion could not be produced: unreadable token file, signing
    ///   failure), `.unreachable` (transport failure, timeout), `.refused` (an error status, with the
    ///   RFC 6749 §5.2 `error` when it is a plain token), `.malformed` (a 200 that is not a JSON
    ///   object with a non-empty `id_token`, or an answer over `maxAnswerBytes`).
    public func redeem(_ redemption: CodeRedemption) async throws(SignInProviderError) -> TokenEndpointAnswer {
        let request = HTTPRequest.identityServiceJSON(
            url: tokenEndpoint, method: "POST",
            headers: [HTTPHeaderField(name: "Content-Type", value: "application/x-www-form-urlencoded")],
            body: try formBody(for: redemption), timeout: timeout, connectTimeout: min(timeout, .seconds(5)),
            maxResponseBytes: Self.maxAnswerBytes, caFile: caFile)
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            throw ProviderTransportFailure.error(for: error, what: "token endpoint answer")
        }
        return try TokenEndpointResponse.answer(status: response.status, body: response.body)
    }

    /// The request body: the RFC 6749 §4.1.3 parameters, then the client authentication.
    func formBody(for redemption: CodeRedemption) throws(SignInProviderError) -> [UInt8] {
        var pairs: [(name: String, value: String)] = [
            ("grant_type", "authorization_code"),
            ("code", redemption.code.revealed),
            ("redirect_uri", redemption.redirectURI),
            ("code_verifier", redemption.codeVerifier.revealed),
            ("client_id", clientID),
        ]
        if let scope { pairs.append(("scope", scope)) }
        pairs += try clientAuthentication()
        return FormURLEncoding.serialize(pairs)
    }

    /// The client authentication parameters of a request to the token endpoint: `client_secret`
    /// (RFC 6749 §2.3.1) or a client assertion (RFC 7521 §4.2, RFC 7523 §2.2).
    func clientAuthentication() throws(SignInProviderError) -> [(name: String, value: String)] {
        switch credential {
        case .secret(let secret):
            return [("client_secret", secret.revealed)]
        case .certificate(let certificate):
            let assertion = try ClientAssertion.signed(
                with: certificate, clientID: clientID, tokenEndpoint: tokenEndpoint, now: timeSource.wallSeconds)
            return [("client_assertion_type", ClientAssertion.assertionType), ("client_assertion", assertion.revealed)]
        case .federatedTokenFile(let path):
            let assertion = try ClientAssertion.federatedToken(at: path)
            return [("client_assertion_type", ClientAssertion.assertionType), ("client_assertion", assertion.revealed)]
        }
    }
}
