import AppNativeAuth
import AppNativeHTTP
import AppNativeSignIn

/// An authorization request to the dev identity provider (RFC 6749 §4.1.1, RFC 7636 §4.3,
/// OpenID Connect Core §3.1.2.1), checked in the order the RFC answers failures: first what makes
/// the redirect URI untrustworthy (shown as a page, never redirected to), then the rest (sent back
/// to the client as `error=…`).
struct DevAuthorizationRequest {
    let clientID: String
    let redirectURI: String
    let scope: String
    let state: String?
    let nonce: String?
    let codeChallenge: String
    /// The parameters as received, to carry through the sign-in page.
    let parameters: [(name: String, value: String)]

    enum Failure: Error {
        /// The client or redirect URI is not registered: shown to the person (RFC 6749 §4.1.2.1).
        case untrusted(String)
        /// Sent back to the redirect URI as an error response (RFC 6749 §4.1.2.1).
        case redirect(redirectURI: String, error: String, description: String, state: String?)
    }

    /// The names the request is made of; anything else (the page's `user`, `cancel`) is not carried.
    static let names = [
        "client_id", "redirect_uri", "response_type", "response_mode", "scope", "state", "nonce",
        "code_challenge", "code_challenge_method", "prompt", "login_hint",
    ]

    init(_ pairs: [(name: String, value: String)], clientID registeredClient: String, redirectURIs: [String]) throws(Failure) {
        var single: [String: String] = [:]
        var repeated = false
        for (name, value) in pairs where Self.names.contains(name) {
            if single[name] != nil { repeated = true }
            single[name] = value
        }
        guard let clientID = single["client_id"], clientID == registeredClient else {
            throw .untrusted("unknown client_id")
        }
        guard let redirectURI = single["redirect_uri"], redirectURIs.contains(redirectURI) else {
            throw .untrusted("redirect_uri is not registered for this client")
        }
        let state = single["state"]
        func refuse(_ error: String, _ description: String) -> Failure {
            .redirect(redirectURI: redirectURI, error: error, description: description, state: state)
        }
        // RFC 6749 §3.1: parameters must not be repeated.
        guard !repeated else { throw refuse("invalid_request", "a parameter is repeated") }
        guard single["response_type"] == "code" else {
            throw refuse("unsupported_response_type", "only response_type=code is supported")
        }
        if let mode = single["response_mode"], mode != "query" {
            throw refuse("invalid_request", "only response_mode=query is supported")
        }
        guard let scope = single["scope"], scope.split(separator: " ").contains("openid") else {
            throw refuse("invalid_scope", "scope must contain openid")
        }
        guard let challenge = single["code_challenge"], single["code_challenge_method"] == "S256" else {
            throw refuse("invalid_request", "PKCE with code_challenge_method=S256 is required")
        }
        // RFC 7636 §4.2: the S256 challenge is 43 base64url characters (a 32-byte digest).
        guard challenge.utf8.count == 43, challenge.utf8.allSatisfy(Base64URL.isAlphabet) else {
            throw refuse("invalid_request", "code_challenge is not an S256 challenge")
        }
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        nonce = single["nonce"]
        codeChallenge = challenge
        parameters = pairs.filter { Self.names.contains($0.name) }
    }

    /// `redirectURI` with `pairs` added to its query (RFC 6749 §4.1.2: the query component is kept).
    static func location(_ redirectURI: String, adding pairs: [(name: String, value: String)]) -> String {
        let separator = redirectURI.contains("?") ? "&" : "?"
        return redirectURI + separator + String(decoding: FormURLEncoding.serialize(pairs), as: UTF8.self)
    }
}
