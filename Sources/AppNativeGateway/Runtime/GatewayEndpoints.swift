import AppNativeAuth
import AppNativeHTTP
import AppNativeIdentity
import AppNativeJSON
import AppNativeProxy
import AppNativeServer

/// The answers of the gateway's own endpoints that need no sign-in flow: the documents it serves
/// (key set, OpenAPI, apple-app-site-association), logout, and what `session`, `me` and `verify`
/// answer once the request is authenticated.
struct GatewayEndpoints {
    let settings: IdentitySettings
    let crossSite: CrossSiteRules
    /// The apple-app-site-association document when `APPLE_APP_IDS` is set (else the upstream's).
    let appSiteAssociation: [UInt8]?
    /// `<AUTH_PATH_PREFIX>openapi.json`.
    let openAPIDocument: [UInt8]

    func serveAppSiteAssociation(_ exchange: HTTPExchange) {
        // Unauthenticated and never redirected: Apple's CDN fetches it without credentials.
        exchange.respond(
            status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=3600"], body: appSiteAssociation ?? [])
    }

    func serveKeySet(_ exchange: HTTPExchange) {
        exchange.respond(
            status: 200,
            headers: ["Content-Type": "application/json", "Cache-Control": "max-age=300"],
            body: Array(settings.assertions.jwksDocument.utf8)
        )
    }

    func serveOpenAPI(_ exchange: HTTPExchange) {
        exchange.respond(status: 200, headers: ["Content-Type": "application/json"], body: openAPIDocument)
    }

    /// The Origin rule of logout: the fields that clear the session cookie, or the refusal.
    func logoutClearing(_ request: HTTPRequestHead) -> Result<HTTPHeaders, Refusal> {
        guard crossSite.allowsLogout(request) else { return .failure(.originNotAllowed) }
        var headers = HTTPHeaders()
        if let cookies = settings.authenticator.cookies {
            headers.add(name: "Set-Cookie", value: cookies.clearCookieHeader())
        }
        return .success(headers)
    }

    /// `POST logout` for a program: 204 with the cookie cleared.
    func answerLogout(_ exchange: HTTPExchange, clearing: HTTPHeaders) {
        var headers = clearing
        headers.add(name: "Cache-Control", value: "no-store")
        exchange.respond(status: 204, headers: headers)
    }

    /// `session`: a Bearer token is exchanged for the session cookie; the 204's fields, or why not.
    func session(for identity: VerifiedIdentity) -> Result<HTTPHeaders, Refusal> {
        guard let cookies = settings.authenticator.cookies else { return .failure(.sessionsNotConfigured) }
        // An application's token is never exchanged for a session: sessions are for browsers.
        guard identity.user.callerType == .user else { return .failure(.applicationSession) }
        return .success(["Set-Cookie": cookies.setCookieHeader(for: identity.user), "Cache-Control": "no-store"])
    }

    func answerMe(_ exchange: HTTPExchange, _ identity: VerifiedIdentity, refreshesCookie: Bool) {
        if refreshesCookie, identity.user.callerType == .user, let cookies = settings.authenticator.cookies {
            exchange.extraResponseHeaders.add(name: "Set-Cookie", value: cookies.setCookieHeader(for: identity.user))
        }
        exchange.respond(
            status: 200,
            headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: Array(Self.meDocument(identity).utf8)
        )
    }

    /// Forward-auth: 200 with the identity headers.
    func answerVerify(_ exchange: HTTPExchange, identityHeaders: HTTPHeaders) {
        var headers = identityHeaders
        // Every header of the profile, empty when the identity has no value: a front proxy
        // copying a header the answer lacks would otherwise pass on whatever the client sent
        // under that name, or (Caddy 2.6) its own unreplaced placeholder text.
        for name in Self.optionalIdentityHeaders[settings.profile] ?? [] where !headers.contains(name) {
            headers.add(name: name, value: "")
        }
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Content-Length", value: "0")
        exchange.respond(status: 200, headers: headers)
    }

    /// Forward-auth for a request served without credentials (public paths, preflights, the
    /// gateway's own endpoints): 200 with every identity field of the profile empty, so a front
    /// proxy copying them replaces whatever the client sent under those names.
    func answerVerifyAnonymous(_ exchange: HTTPExchange) {
        var headers = HTTPHeaders()
        for name in Self.allIdentityHeaders[settings.profile] ?? [] { headers.add(name: name, value: "") }
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Content-Length", value: "0")
        exchange.respond(status: 200, headers: headers)
    }

    /// Every identity field a profile can send, the assertion included.
    static let allIdentityHeaders: [IdentityHeaders.Profile: [String]] = Dictionary(
        uniqueKeysWithValues: IdentityHeaders.Profile.allCases.map { profile in
            let every = IdentityHeaders.headers(
                profile: profile, objectID: "", email: "", name: "", upn: "", tenantID: "", method: "", roles: [""], groups: [""],
                callerType: "", clientID: "", assertion: "")
            return (profile, every.map(\.name))
        })

    /// Identity headers a profile sends only when the identity has the value.
    static let optionalIdentityHeaders: [IdentityHeaders.Profile: [String]] = [
        .gateway: [
            "X-AppNative-User-Email", "X-AppNative-User-Name", "X-AppNative-User-UPN", "X-AppNative-User-Roles",
            "X-AppNative-User-Groups", "X-AppNative-Client-Id",
        ],
        .oauth2Proxy: [
            "X-Forwarded-Email", "X-Forwarded-Preferred-Username", "X-Forwarded-Groups", "X-AppNative-User-Roles",
            "X-AppNative-Client-Id",
        ],
    ]

    /// `GET me`'s document, written by AppNativeJSON like every JSON answer.
    static func meDocument(_ identity: VerifiedIdentity) -> String {
        let user = identity.user
        var fields: [(String, JSONValue)] = [("oid", .string(user.objectID))]
        // An application has no email.
        if let email = user.email { fields.append(("email", .string(email))) }
        fields += [
            ("tenant_id", .string(user.tenantID)),
            ("caller_type", .string(user.callerType.rawValue)),
            ("auth_method", .string(identity.method.rawValue)),
            ("expires_at", .number(JSONNumber(Int64(max(-9.0e15, min(identity.expiresAt, 9.0e15)))))),
        ]
        if let name = user.name { fields.append(("name", .string(name))) }
        if let upn = user.upn { fields.append(("upn", .string(upn))) }
        if !user.roles.isEmpty { fields.append(("roles", .array(user.roles.map { .string($0) }))) }
        if let clientID = user.clientID { fields.append(("client_id", .string(clientID))) }
        if !user.groups.isEmpty { fields.append(("groups", .array(user.groups.map { .string($0) }))) }
        if user.hasGroupsOverage { fields.append(("groups_overage", .bool(true))) }
        return JSONSerializer.string(.object(JSONObject(fields)))
    }
}
