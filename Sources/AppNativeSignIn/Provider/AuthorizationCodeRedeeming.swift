public import AppNativeCore

/// One authorization code to redeem at the token endpoint (RFC 6749 §4.1.3, RFC 7636 §4.5).
public struct CodeRedemption: Sendable {
    public let code: Secret<String>
    public let codeVerifier: Secret<String>
    /// The exact `redirect_uri` the authorization request carried.
    public let redirectURI: String

    public init(code: Secret<String>, codeVerifier: Secret<String>, redirectURI: String) {
        self.code = code
        self.codeVerifier = codeVerifier
        self.redirectURI = redirectURI
    }
}

/// What the token endpoint answered that the sign-in uses: the ID token, unverified.
/// Access and refresh tokens are not kept: the session cookie carries the identity only.
public struct TokenEndpointAnswer: Sendable {
    public let idToken: Secret<String>

    public init(idToken: Secret<String>) {
        self.idToken = idToken
    }
}

/// Redeems codes at the token endpoint, authenticating the client with its configured credential.
public protocol AuthorizationCodeRedeeming: Sendable {
    func redeem(_ redemption: CodeRedemption) async throws(SignInProviderError) -> TokenEndpointAnswer
}
