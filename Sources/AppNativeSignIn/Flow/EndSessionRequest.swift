/// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2): the provider ends its session,
/// then sends the browser to `post_logout_redirect_uri`.
public struct EndSessionRequest: Sendable {
    public let endSessionEndpoint: String
    public let clientID: String
    public let postLogoutRedirectURI: String

    public init(endSessionEndpoint: String, clientID: String, postLogoutRedirectURI: String) {
        self.endSessionEndpoint = endSessionEndpoint
        self.clientID = clientID
        self.postLogoutRedirectURI = postLogoutRedirectURI
    }

    public var url: String {
        let query = [("client_id", clientID), ("post_logout_redirect_uri", postLogoutRedirectURI)]
            .map { SignInText.percentEncoded($0.0) + "=" + SignInText.percentEncoded($0.1) }.joined(separator: "&")
        return endSessionEndpoint + (endSessionEndpoint.contains("?") ? "&" : "?") + query
    }
}
