/// Ways the dev identity provider can be told to depart from what it normally does, so a test can
/// show the gateway catching a provider (or a mix-up) that does: all off by default.
public struct DevSignInQuirks: Sendable {
    /// Audiences added to the ID token's `aud` next to the client id (it becomes an array).
    public var extraAudiences: [String] = []
    /// An `azp` claim for the ID token.
    public var authorizedParty: String?
    /// Whether discovery advertises `authorization_response_iss_parameter_supported` (RFC 9207 §3).
    public var advertisesIssuerParameter = false
    /// Whether the redirect back carries `iss` (RFC 9207 §2).
    public var sendsIssuerParameter = false

    /// The quirks named; the rest off.
    public init(
        extraAudiences: [String] = [], authorizedParty: String? = nil, advertisesIssuerParameter: Bool = false,
        sendsIssuerParameter: Bool = false
    ) {
        self.extraAudiences = extraAudiences
        self.authorizedParty = authorizedParty
        self.advertisesIssuerParameter = advertisesIssuerParameter
        self.sendsIssuerParameter = sendsIssuerParameter
    }
}
