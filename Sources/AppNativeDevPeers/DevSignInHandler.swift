import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeHTTP
import AppNativeJSON
import AppNativeServer
import AppNativeSignIn

/// Serves the dev identity provider's endpoints on one loop; the state is `DevSignInAuthority`'s.
final class DevSignInHandler: HTTPExchangeHandler {
    static let authorizePath = "/oauth2/v2.0/authorize"
    static let tokenPath = "/oauth2/v2.0/token"
    static let logoutPath = "/oauth2/v2.0/logout"
    static let keysPath = "/discovery/v2.0/keys"
    /// Forms larger than this are refused; the largest legitimate one is a few hundred bytes.
    static let maxBodyBytes = 16 * 1024

    private let authority: DevSignInAuthority

    init(authority: DevSignInAuthority) {
        self.authority = authority
    }

    func serve(_ exchange: HTTPExchange) {
        guard exchange.hasRequestBody else {
            route(exchange, body: [])
            return
        }
        var body: [UInt8] = []
        var isTooLarge = false
        exchange.readBody(onChunk: { chunk in
            if body.count + chunk.count > Self.maxBodyBytes { isTooLarge = true } else { body.append(contentsOf: chunk) }
        }, onEnd: { [self] _ in
            if isTooLarge {
                exchange.respondJSONError(status: 413, detail: "form too large")
            } else {
                route(exchange, body: body)
            }
        })
    }

    func exchangeDidEnd(_ exchange: HTTPExchange) {}

    private func route(_ exchange: HTTPExchange, body: [UInt8]) {
        let target = exchange.request.target
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        switch (exchange.request.method, path) {
        case ("GET", "/.well-known/openid-configuration"):
            respondJSON(exchange, status: 200, discoveryDocument())
        case ("GET", Self.keysPath):
            exchange.respond(status: 200, headers: ["Content-Type": "application/json"], body: Array(authority.provider.jwksDocument.utf8))
        case ("GET", Self.authorizePath):
            authorize(exchange, FormURLEncoding.parseQuery(ofTarget: target))
        case ("POST", Self.authorizePath):
            choose(exchange, FormURLEncoding.parse(body))
        case ("POST", Self.tokenPath):
            token(exchange, FormURLEncoding.parse(body))
        case ("GET", Self.logoutPath), ("POST", Self.logoutPath):
            logout(exchange, exchange.request.method == "GET" ? FormURLEncoding.parseQuery(ofTarget: target) : FormURLEncoding.parse(body))
        default:
            exchange.respondJSONError(status: 404, detail: "Not Found")
        }
    }

    // MARK: Discovery (OpenID Connect Discovery 1.0 §3)

    private func discoveryDocument() -> JSONObject {
        let issuer = authority.issuer
        var document = JSONObject()
        document["issuer"] = .string(issuer)
        document["authorization_endpoint"] = .string(issuer + Self.authorizePath)
        document["token_endpoint"] = .string(issuer + Self.tokenPath)
        document["jwks_uri"] = .string(issuer + Self.keysPath)
        document["end_session_endpoint"] = .string(issuer + Self.logoutPath)
        document["response_types_supported"] = .array([.string("code")])
        document["response_modes_supported"] = .array([.string("query")])
        document["grant_types_supported"] = .array([.string("authorization_code")])
        document["subject_types_supported"] = .array([.string("pairwise")])
        document["id_token_signing_alg_values_supported"] = .array([.string("RS256")])
        document["code_challenge_methods_supported"] = .array([.string("S256")])
        document["token_endpoint_auth_methods_supported"] = .array([.string("client_secret_post")])
        if authority.quirks.advertisesIssuerParameter {
            document["authorization_response_iss_parameter_supported"] = .bool(true)
        }
        document["scopes_supported"] = .array(["openid", "profile", "email"].map(JSONValue.string))
        document["claims_supported"] = .array(
            ["sub", "iss", "aud", "exp", "iat", "nbf", "nonce", "tid", "oid", "email", "name", "preferred_username", "roles"]
                .map(JSONValue.string))
        return document
    }

    // MARK: Authorize (RFC 6749 §4.1.1, §4.1.2)

    private func authorize(_ exchange: HTTPExchange, _ pairs: [(name: String, value: String)]) {
        do {
            let request = try DevAuthorizationRequest(pairs, clientID: authority.clientID, redirectURIs: authority.redirectURIs)
            let page = DevSignInPage.userChoice(request: request.parameters, users: authority.users, action: Self.authorizePath)
            respondHTML(exchange, status: 200, page)
        } catch {
            refuse(exchange, error)
        }
    }

    /// The sign-in page's answer: a chosen user gets a code, a cancel gets `access_denied`.
    private func choose(_ exchange: HTTPExchange, _ pairs: [(name: String, value: String)]) {
        let request: DevAuthorizationRequest
        do {
            request = try DevAuthorizationRequest(pairs, clientID: authority.clientID, redirectURIs: authority.redirectURIs)
        } catch {
            refuse(exchange, error)
            return
        }
        var answer: [(name: String, value: String)]
        if pairs.contains(where: { $0.name == "cancel" }) {
            answer = [("error", "access_denied"), ("error_description", "the user cancelled the sign-in")]
        } else if let chosen = pairs.first(where: { $0.name == "user" })?.value,
            let user = authority.users.first(where: { $0.id == chosen })
        {
            let grant = DevSignInCodes.Grant(
                clientID: request.clientID, redirectURI: request.redirectURI, codeChallenge: request.codeChallenge,
                nonce: request.nonce, scope: request.scope, user: user,
                expiresAt: authority.timeSource.wallSeconds + DevSignInCodes.lifetime
            )
            answer = [("code", authority.codes.issue(grant))]
        } else {
            answer = [("error", "invalid_request"), ("error_description", "no user chosen")]
        }
        if let state = request.state { answer.append(("state", state)) }
        if authority.quirks.sendsIssuerParameter { answer.append(("iss", authority.issuer)) }
        redirect(exchange, to: DevAuthorizationRequest.location(request.redirectURI, adding: answer))
    }

    private func refuse(_ exchange: HTTPExchange, _ failure: DevAuthorizationRequest.Failure) {
        switch failure {
        case .untrusted(let message):
            respondHTML(exchange, status: 400, DevSignInPage.error(message))
        case .redirect(let redirectURI, let error, let description, let state):
            var answer = [("error", error), ("error_description", description)]
            if let state { answer.append(("state", state)) }
            redirect(exchange, to: DevAuthorizationRequest.location(redirectURI, adding: answer))
        }
    }

    // MARK: Token (RFC 6749 §4.1.3, §5)

    private func token(_ exchange: HTTPExchange, _ pairs: [(name: String, value: String)]) {
        guard exchange.request.headers.containsMediaType("application/x-www-form-urlencoded", inField: "Content-Type") else {
            return tokenError(exchange, status: 400, "invalid_request", "the body must be application/x-www-form-urlencoded")
        }
        var single: [String: String] = [:]
        for (name, value) in pairs {
            guard single[name] == nil else { return tokenError(exchange, status: 400, "invalid_request", "a parameter is repeated") }
            single[name] = value
        }
        // client_secret_post (RFC 6749 §2.3.1), compared in constant time.
        guard single["client_id"] == authority.clientID, let secret = single["client_secret"],
            ConstantTime.equals(Array(secret.utf8), Array(authority.clientSecret.utf8))
        else {
            return tokenError(exchange, status: 401, "invalid_client", "client authentication failed")
        }
        guard single["grant_type"] == "authorization_code" else {
            return tokenError(exchange, status: 400, "unsupported_grant_type", "only authorization_code is supported")
        }
        guard let code = single["code"], let redirectURI = single["redirect_uri"], let verifier = single["code_verifier"] else {
            return tokenError(exchange, status: 400, "invalid_request", "code, redirect_uri and code_verifier are required")
        }
        // RFC 7636 §4.1: 43 to 128 unreserved characters.
        guard (43...128).contains(verifier.utf8.count), verifier.utf8.allSatisfy(Self.isUnreserved) else {
            return tokenError(exchange, status: 400, "invalid_request", "code_verifier is not a PKCE verifier")
        }
        let now = authority.timeSource.wallSeconds
        let grant: DevSignInCodes.Grant
        do {
            grant = try authority.codes.redeem(
                code: code, clientID: authority.clientID, redirectURI: redirectURI, codeVerifier: verifier, now: now)
        } catch {
            return tokenError(exchange, status: 400, "invalid_grant", Self.describe(error))
        }
        let idToken: String
        do {
            idToken = try authority.provider.signInIDToken(
                for: grant.user, issuer: authority.issuer, clientID: grant.clientID, nonce: grant.nonce, issuedAt: now,
                extraAudiences: authority.quirks.extraAudiences, authorizedParty: authority.quirks.authorizedParty)
        } catch {
            return tokenError(exchange, status: 500, "server_error", "the ID token could not be signed")
        }
        var answer = JSONObject()
        answer["access_token"] = .string("dev-access-token-" + Base64URL.encode(SecureRandom.bytes(count: 16)))
        answer["token_type"] = .string("Bearer")
        answer["expires_in"] = .number(JSONNumber(3600))
        answer["scope"] = .string(grant.scope)
        answer["id_token"] = .string(idToken)
        respondJSON(exchange, status: 200, answer)
    }

    private static func describe(_ refusal: DevSignInCodes.Refusal) -> String {
        switch refusal {
        case .unknownOrUsed: "the code is unknown or was already used"
        case .expired: "the code has expired"
        case .otherClient: "the code was issued to another client"
        case .otherRedirectURI: "redirect_uri differs from the authorization request's"
        case .verifierMismatch: "code_verifier does not match the code_challenge"
        }
    }

    /// An error response (RFC 6749 §5.2).
    private func tokenError(_ exchange: HTTPExchange, status: Int, _ error: String, _ description: String) {
        var answer = JSONObject()
        answer["error"] = .string(error)
        answer["error_description"] = .string(description)
        respondJSON(exchange, status: status, answer)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        Base64URL.isAlphabet(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
    }

    // MARK: End session (OpenID Connect RP-Initiated Logout 1.0 §2, §3)

    private func logout(_ exchange: HTTPExchange, _ pairs: [(name: String, value: String)]) {
        let target = pairs.first { $0.name == "post_logout_redirect_uri" }?.value
        guard let target, authority.acceptsPostLogoutRedirect(target) else {
            respondHTML(exchange, status: 200, DevSignInPage.signedOut)
            return
        }
        var answer: [(name: String, value: String)] = []
        if let state = pairs.first(where: { $0.name == "state" })?.value { answer.append(("state", state)) }
        redirect(exchange, to: answer.isEmpty ? target : DevAuthorizationRequest.location(target, adding: answer))
    }

    // MARK: Answers

    private func respondJSON(_ exchange: HTTPExchange, status: Int, _ object: JSONObject) {
        // RFC 6749 §5.1: token answers must not be cached; harmless on the others.
        exchange.respond(
            status: status,
            headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: JSONSerializer.serialize(.object(object))
        )
    }

    private func respondHTML(_ exchange: HTTPExchange, status: Int, _ page: String) {
        exchange.respond(
            status: status,
            headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"],
            body: Array(page.utf8)
        )
    }

    private func redirect(_ exchange: HTTPExchange, to location: String) {
        exchange.respond(status: 302, headers: ["Location": location, "Cache-Control": "no-store"])
    }
}

@available(*, unavailable, message: "loop-owned")
extension DevSignInHandler: Sendable {}
