public import AppNativeJSON

/// Claim sets shaped like the tokens Entra ID issues, claim for claim as Microsoft documents them
/// (Microsoft identity platform: "ID token claims reference", "Access token claims reference"
/// v1.0 and v2.0, "groups overage claim"), for tests and the dev tools: a user's ID token, a
/// user's v1 and v2 access tokens for an API, an application's v1 and v2 app-only
/// (client-credentials) tokens, and the two ways Entra signals a groups overage. Sign one with
/// `DevIdentityProvider.token(claims:)`.
///
/// DEV AND TEST ONLY: the values are made up (the `aio`, `rh` and `uti` values are opaque to
/// relying parties and only stand where Entra puts them).
public struct EntraTokenShapes: Sendable {
    public var tenantID: String
    /// The iOS app's registration (ID tokens' `aud`, access tokens' `azp`/`appid`).
    public var appClientID: String
    /// The API's registration (access tokens' `aud`: `{id}` in v2, `api://{id}` in v1).
    public var apiClientID: String
    /// A service's registration calling with client credentials.
    public var serviceClientID: String
    /// The service's service principal object id (`oid` = `sub` of its app-only tokens).
    public var servicePrincipalID = "7e57a110-0000-4000-8000-00000000a991"
    public var userObjectID = "11111111-2222-4333-8444-555555555555"
    public var userName = "Zoë Müller-Łukasz"
    public var userPrincipalName = "dev.user@example.com"
    public var issuedAt: Int64
    public var lifetime: Int64 = 3600

    public init(tenantID: String, appClientID: String, apiClientID: String, serviceClientID: String, issuedAt: Double) {
        self.tenantID = tenantID
        self.appClientID = appClientID
        self.apiClientID = apiClientID
        self.serviceClientID = serviceClientID
        self.issuedAt = Int64(issuedAt)
    }

    public var v1Issuer: String { "https://sts.windows.net/\(tenantID)/" }
    public var v2Issuer: String { "https://login.microsoftonline.com/\(tenantID)/v2.0" }

    private func times(_ claims: inout JSONObject) {
        claims["iat"] = .number(JSONNumber(issuedAt))
        claims["nbf"] = .number(JSONNumber(issuedAt))
        claims["exp"] = .number(JSONNumber(issuedAt + lifetime))
    }

    private func opaque(_ claims: inout JSONObject) {
        claims["aio"] = .string("AWQAm/8TAAAA-dev-aio")
        claims["rh"] = .string("0.AQ4A-dev-rh.")
        claims["uti"] = .string("dev-uti-AAAA")
    }

    /// A v2.0 ID token of the iOS app (the sign-in's `id_token`).
    public func idToken(email: String? = nil) -> JSONObject {
        var claims = JSONObject()
        claims["aud"] = .string(appClientID)
        claims["iss"] = .string(v2Issuer)
        times(&claims)
        opaque(&claims)
        claims["name"] = .string(userName)
        claims["nonce"] = .string("dev-nonce")
        claims["oid"] = .string(userObjectID)
        claims["preferred_username"] = .string(userPrincipalName)
        if let email { claims["email"] = .string(email) }
        claims["sub"] = .string("AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ")
        claims["tid"] = .string(tenantID)
        claims["ver"] = .string("2.0")
        return claims
    }

    /// A user's v1.0 access token for the API (`accessTokenAcceptedVersion` null or 1): `aud`
    /// `api://{id}`, the `sts.windows.net` issuer, `appid`, `upn`, `unique_name`, no `email`.
    public func accessTokenV1(scopes: String = "access_as_user") -> JSONObject {
        var claims = JSONObject()
        claims["aud"] = .string("api://\(apiClientID)")
        claims["iss"] = .string(v1Issuer)
        times(&claims)
        claims["acr"] = .string("1")
        opaque(&claims)
        claims["amr"] = .array([.string("pwd")])
        claims["appid"] = .string(appClientID)
        claims["appidacr"] = .string("0")
        claims["family_name"] = .string("Müller-Łukasz")
        claims["given_name"] = .string("Zoë")
        claims["ipaddr"] = .string("203.0.113.7")
        claims["name"] = .string(userName)
        claims["oid"] = .string(userObjectID)
        claims["scp"] = .string(scopes)
        claims["sub"] = .string("l3_roISQU222bULS9yi2k0XpqpOiMz5H3ZACo1GeXA")
        claims["tid"] = .string(tenantID)
        claims["unique_name"] = .string(userPrincipalName)
        claims["upn"] = .string(userPrincipalName)
        claims["ver"] = .string("1.0")
        return claims
    }

    /// A user's v2.0 access token for the API (`accessTokenAcceptedVersion` 2): `aud` the
    /// API's client id, the v2.0 issuer, `azp`, `preferred_username`.
    public func accessTokenV2(scopes: String = "access_as_user") -> JSONObject {
        var claims = JSONObject()
        claims["aud"] = .string(apiClientID)
        claims["iss"] = .string(v2Issuer)
        times(&claims)
        opaque(&claims)
        claims["azp"] = .string(appClientID)
        claims["azpacr"] = .string("0")
        claims["name"] = .string(userName)
        claims["oid"] = .string(userObjectID)
        claims["preferred_username"] = .string(userPrincipalName)
        claims["scp"] = .string(scopes)
        claims["sub"] = .string("AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ")
        claims["tid"] = .string(tenantID)
        claims["ver"] = .string("2.0")
        return claims
    }

    /// An application's v1.0 app-only token (client credentials, `…/.default`): no `scp`,
    /// `roles`, `appid` the caller, `oid` = `sub` its service principal.
    public func appTokenV1(roles: [String] = ["Reports.Read"]) -> JSONObject {
        var claims = JSONObject()
        claims["aud"] = .string("api://\(apiClientID)")
        claims["iss"] = .string(v1Issuer)
        times(&claims)
        opaque(&claims)
        claims["appid"] = .string(serviceClientID)
        claims["appidacr"] = .string("1")
        claims["idp"] = .string(v1Issuer)
        claims["oid"] = .string(servicePrincipalID)
        if !roles.isEmpty { claims["roles"] = .array(roles.map(JSONValue.string)) }
        claims["sub"] = .string(servicePrincipalID)
        claims["tid"] = .string(tenantID)
        claims["ver"] = .string("1.0")
        return claims
    }

    /// An application's v2.0 app-only token: no `scp`, `roles`, `azp` the caller, `oid` = `sub`,
    /// and `idtyp: "app"` when the API registration asks for that optional claim.
    public func appTokenV2(roles: [String] = ["Reports.Read"], withTokenType: Bool = true) -> JSONObject {
        var claims = JSONObject()
        claims["aud"] = .string(apiClientID)
        claims["iss"] = .string(v2Issuer)
        times(&claims)
        opaque(&claims)
        claims["azp"] = .string(serviceClientID)
        claims["azpacr"] = .string("1")
        if withTokenType { claims["idtyp"] = .string("app") }
        claims["oid"] = .string(servicePrincipalID)
        if !roles.isEmpty { claims["roles"] = .array(roles.map(JSONValue.string)) }
        claims["sub"] = .string(servicePrincipalID)
        claims["tid"] = .string(tenantID)
        claims["ver"] = .string("2.0")
        return claims
    }

    /// `claims` with a `groups` claim.
    public static func withGroups(_ claims: JSONObject, _ groups: [String]) -> JSONObject {
        var claims = claims
        claims["groups"] = .array(groups.map(JSONValue.string))
        return claims
    }

    /// `claims` with the groups overage of the authorization-code and client-credentials flows:
    /// no `groups`, `_claim_names.groups` pointing into `_claim_sources`.
    public func withGroupsOverage(_ claims: JSONObject) -> JSONObject {
        var claims = claims
        claims["groups"] = nil
        claims["_claim_names"] = .object(JSONObject([("groups", .string("src1"))]))
        let endpoint = "https://graph.windows.net/\(tenantID)/users/\(claims["oid"]?.stringValue ?? "")/getMemberObjects"
        claims["_claim_sources"] = .object(JSONObject([("src1", .object(JSONObject([("endpoint", .string(endpoint))])))]))
        return claims
    }

    /// `claims` with the implicit flow's groups overage: `hasgroups: true`, no `groups`.
    public static func withHasGroups(_ claims: JSONObject) -> JSONObject {
        var claims = claims
        claims["groups"] = nil
        claims["hasgroups"] = .bool(true)
        return claims
    }
}
