/// What the browser sign-in needs from an OpenID provider's discovery document
/// (OpenID Connect Discovery 1.0 §3): where to send the browser, where to redeem the code, which
/// key set signs its ID tokens, and which issuer they name.
public struct ProviderMetadata: Sendable, Equatable {
    /// The `issuer` of the discovery document; an ID token's `iss` must equal it exactly.
    public let issuer: String
    public let authorizationEndpoint: String
    public let tokenEndpoint: String
    public let jwksURI: String
    /// Present when the provider supports RP-initiated logout (`SIGN_OUT=entra`).
    public let endSessionEndpoint: String?
    /// `authorization_response_iss_parameter_supported` (RFC 9207 §3): the provider puts `iss` in
    /// every authorization response, so a callback without it is refused (§2.4).
    public let sendsIssuerParameter: Bool

    public init(
        issuer: String, authorizationEndpoint: String, tokenEndpoint: String, jwksURI: String, endSessionEndpoint: String?,
        sendsIssuerParameter: Bool = false
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.endSessionEndpoint = endSessionEndpoint
        self.sendsIssuerParameter = sendsIssuerParameter
    }
}

/// Fetches and validates the provider's metadata (`OIDC_DISCOVERY_URL`).
public protocol ProviderMetadataFetching: Sendable {
    func fetchMetadata() async throws(SignInProviderError) -> ProviderMetadata
}
