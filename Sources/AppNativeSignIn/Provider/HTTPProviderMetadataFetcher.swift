public import AppNativeAuth
public import AppNativeClient

/// Downloads and validates the provider's discovery document (`OIDC_DISCOVERY_URL`) over libcurl,
/// with the outbound rules of the key-set download: https only (plain http only to a loopback
/// address), `Accept: application/json`, redirects never followed (a 3xx is a refusal), at most
/// `ProviderMetadata.maxDocumentBytes`, a timeout, no proxy from the environment.
public struct HTTPProviderMetadataFetcher: ProviderMetadataFetching {
    /// The suffix OpenID Connect Discovery 1.0 §4 appends to the issuer.
    public static let wellKnownSuffix = "/.well-known/openid-configuration"

    public let discoveryURL: String
    /// The issuer the document must name: the discovery URL without `wellKnownSuffix` (§4.3), or
    /// nil when the URL does not end with it (then the document's own `issuer` is taken).
    public let expectedIssuer: String?
    private let client: any HTTPFetching
    private let caFile: String?
    private let socketTimeout: Duration

    /// - Parameters:
    ///   - discoveryURL: the document's URL.
    ///   - client: the transport (a fake in tests).
    ///   - caFile: a PEM bundle to trust instead of the system store.
    ///   - socketTimeout: the connect limit; the whole exchange may take twice as long.
    /// - Throws: `ClientError` (`.invalidURL`, `.insecureScheme`) when the URL breaks the outbound rules.
    public init(
        discoveryURL: String,
        client: any HTTPFetching = CurlHTTPClient.shared,
        caFile: String? = nil,
        socketTimeout: Duration = .seconds(5)
    ) throws(ClientError) {
        try URLPolicy.validateOutbound(url: discoveryURL, allowsCleartextOnLoopback: true)
        self.discoveryURL = discoveryURL
        expectedIssuer = discoveryURL.hasSuffix(Self.wellKnownSuffix)
            ? String(discoveryURL.dropLast(Self.wellKnownSuffix.count)) : nil
        self.client = client
        self.caFile = caFile
        self.socketTimeout = socketTimeout
    }

    /// Entra ID's v2.0 discovery URL for the configured tenant on its login host (`ENTRA_AUTHORITY_HOST`):
    /// `https://{host}/{tenant}/v2.0/.well-known/openid-configuration`.
    public static func entraDiscoveryURL(for entra: EntraConfiguration) -> String {
        "https://\(entra.authorityHost)/\(entra.tenantID)/v2.0" + wellKnownSuffix
    }

    /// A fetcher of Entra ID's discovery document for the tenant and login host of `entra`.
    public init(
        entra: EntraConfiguration,
        client: any HTTPFetching = CurlHTTPClient.shared,
        caFile: String? = nil,
        socketTimeout: Duration = .seconds(5)
    ) throws(ClientError) {
        try self.init(discoveryURL: Self.entraDiscoveryURL(for: entra), client: client, caFile: caFile, socketTimeout: socketTimeout)
    }

    /// Fetches and validates the document.
    ///
    /// - Throws: `.unreachable` (transport failure, timeout), `.refused` (any status but 200, a
    ///   redirect included), `.malformed` (too large, not JSON, a rule of
    ///   `ProviderMetadata.validated(discoveryDocument:expectedIssuer:)` broken).
    public func fetchMetadata() async throws(SignInProviderError) -> ProviderMetadata {
        let request = HTTPRequest.identityServiceJSON(
            url: discoveryURL, timeout: socketTimeout * 2, connectTimeout: socketTimeout,
            maxResponseBytes: ProviderMetadata.maxDocumentBytes, caFile: caFile)
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            throw ProviderTransportFailure.error(for: error, what: "discovery document")
        }
        guard response.status == 200 else { throw .refused(status: response.status, oauthError: nil) }
        return try ProviderMetadata.validated(discoveryDocument: response.body, expectedIssuer: expectedIssuer)
    }
}
