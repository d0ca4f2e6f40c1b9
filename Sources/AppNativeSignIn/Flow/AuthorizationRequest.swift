import AppNativeCore

/// The authorization request the browser is redirected to (RFC 6749 §4.1.1, RFC 7636 §4.3,
/// OpenID Connect Core §3.1.2.1): code flow, `response_mode=query`, PKCE S256, `state`, `nonce`.
public struct AuthorizationRequest: Sendable {
    public let authorizationEndpoint: String
    public let clientID: String
    public let redirectURI: String
    /// Space-separated (`SIGN_IN_SCOPES`); always includes `openid`.
    public let scopes: String

    public init(authorizationEndpoint: String, clientID: String, redirectURI: String, scopes: String) {
        self.authorizationEndpoint = authorizationEndpoint
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
    }

    /// The `Location` for `attempt`.
    public func url(for attempt: SignInAttempt) -> String {
        let parameters: [(String, String)] = [
            ("client_id", clientID),
            ("response_type", "code"),
            ("response_mode", "query"),
            ("redirect_uri", redirectURI),
            ("scope", scopes),
            ("state", attempt.state),
            ("nonce", attempt.nonce.revealed),
            ("code_challenge", attempt.proofKey.challenge),
            ("code_challenge_method", ProofKey.challengeMethod),
        ]
        let query = parameters.map { SignInText.percentEncoded($0.0) + "=" + SignInText.percentEncoded($0.1) }.joined(separator: "&")
        // The endpoint may carry a query of its own (some providers put a policy there).
        return authorizationEndpoint + (authorizationEndpoint.contains("?") ? "&" : "?") + query
    }
}
