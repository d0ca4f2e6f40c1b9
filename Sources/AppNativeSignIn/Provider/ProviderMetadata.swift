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

    public init(issuer: String, authorizationEndpoint: String, tokenEndpoint: String, jwksURI: String, endSessionEndpoint: String?) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.endSessionEndpoint = endSessionEndpoint
    }
}

/// Fetches and validates the provider's metadata (`OIDC_DISCOVERY_URL`).
public protocol ProviderMetadataFetching: Sendable {
    func fetchMetadata() async throws(SignInProviderError) -> ProviderMetadata
}
