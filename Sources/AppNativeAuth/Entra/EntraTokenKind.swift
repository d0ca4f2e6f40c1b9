import AppNativeJSON

/// Which kind of Entra token a verified token is, told from its claims as Microsoft documents them
/// (ID token claims reference; access token claims reference, v1.0 and v2.0), and the rules of
/// that kind (contract/auth.md §3 step 14 and §4).
///
/// - `aud` names the kind: one of `ENTRA_AUDIENCE` is an ID token, one of the API's (`{id}`,
///   `api://{id}`, `ENTRA_ALLOWED_AUDIENCES`) an access token. A token naming both is refused.
/// - `iss` names the version: `https://sts.windows.net/{tid}/` is v1 (access tokens only), the
///   `…/v2.0` issuer v2; a `ver` claim that disagrees is refused.
/// - An access token with `scp` is delegated (a user); without `scp` it is app-only when `idtyp`
///   is `"app"` or, without `idtyp`, when `oid` equals `sub` (Microsoft's documented test: a
///   service principal's token has `oid` = `sub`). `scp` beside `idtyp: "app"` is refused.
/// - The client application is `azp` (v2) or `appid` (v1); for an ID token its `aud`.
public enum EntraTokenKind: Sendable, Equatable {
    /// An ID token of the iOS app; `clientID` is the matched `aud`.
    case idToken(clientID: String)
    /// A user's access token for the API (`scp` holds a required scope).
    case delegatedAccessToken(version: Version, clientID: String?)
    /// An application's own access token (client credentials), of an allowed client.
    case appOnlyAccessToken(version: Version, clientID: String)

    public enum Version: String, Sendable {
        case v1 = "1.0"
        case v2 = "2.0"
    }

    /// The kind of `claims` (already verified: signature, time, issuer, audience) under `configuration`,
    /// with the kind's rules applied.
    ///
    /// - Throws: `AuthError` with `token_kind`, `issuer`, `access_token`, `no_scope_claim`, `scope`
    ///   (403), `app_only` (403) or `app_not_allowed` (403).
    public static func classify(_ claims: JWTClaims, configuration: EntraConfiguration) throws(AuthError) -> EntraTokenKind {
        let audiences = claims.stringList("aud") ?? []
        let idAudience = configuration.idTokens.flatMap { rules in audiences.first(where: rules.audiences.contains) }
        let accessRules = configuration.accessTokens.flatMap { rules in audiences.contains(where: rules.audiences.contains) ? rules : nil }
        let version: Version = claims.string("iss") == configuration.v2Issuer ? .v2 : .v1
        if let ver = claims.string("ver"), ver != version.rawValue {
            throw AuthError(.tokenKind, "ver \(ver == "1.0" || ver == "2.0" ? ver : "(other)") disagrees with the issuer")
        }
        let appType = claims.string("idtyp")
        switch (idAudience, accessRules) {
        case (.some, .some):
            throw AuthError(.tokenKind, "aud names both an ID-token audience and the API")
        case (let clientID?, nil):
            guard version == .v2 else { throw AuthError(.issuer, "an ID token has the v2 issuer") }
            if claims.contains("scp") { throw AuthError(.accessToken, "an ID token carries no scp claim (an access token was sent)") }
            if appType == "app" { throw AuthError(.tokenKind, "an ID token with idtyp app") }
            return .idToken(clientID: clientID)
        case (nil, let rules?):
            return try accessTokenKind(claims, version: version, appType: appType, rules: rules)
        case (nil, nil):
            // The generic audience check has passed, so this cannot happen; refused all the same.
            throw AuthError(.audience, "aud is none of the configured audiences")
        }
    }

    private static func accessTokenKind(
        _ claims: JWTClaims, version: Version, appType: String?, rules: EntraConfiguration.AccessTokenRules
    ) throws(AuthError) -> EntraTokenKind {
        let clientID = claims.nonBlankString(version == .v2 ? "azp" : "appid")
        if claims.contains("scp") {
            if appType == "app" { throw AuthError(.tokenKind, "scp beside idtyp app") }
            guard let scopes = claims.nonBlankString("scp") else { throw AuthError(.noScopeClaim, "scp is not a non-blank string") }
            let granted = scopes.split(whereSeparator: { $0.isWhitespace })
            guard granted.contains(where: { scope in rules.requiredScopes.contains(where: { $0 == scope }) }) else {
                throw AuthError(.scope, "access token holds none of the required scopes")
            }
            return .delegatedAccessToken(version: version, clientID: clientID)
        }
        let isAppOnly: Bool
        switch appType {
        case "app"?: isAppOnly = true
        case nil:
            let objectID = claims.nonBlankString("oid")
            isAppOnly = objectID != nil && objectID == claims.nonBlankString("sub")
        default: isAppOnly = false
        }
        guard isAppOnly else { throw AuthError(.noScopeClaim, "access token has no scp claim") }
        guard !rules.appClients.isEmpty else {
            throw AuthError(.appOnly, "app-only token: service callers are not enabled (ENTRA_APP_CLIENTS)")
        }
        guard let clientID else {
            throw AuthError(.appNotAllowed, "app-only token names no client (\(version == .v2 ? "azp" : "appid"))")
        }
        guard rules.appClients.contains(clientID) else {
            throw AuthError(.appNotAllowed, "app-only token of a client not in ENTRA_APP_CLIENTS")
        }
        return .appOnlyAccessToken(version: version, clientID: clientID)
    }

    /// The caller this kind of token identifies.
    public var callerType: CallerType {
        if case .appOnlyAccessToken = self { return .app }
        return .user
    }

    /// The client application the token came through.
    public var clientID: String? {
        switch self {
        case .idToken(let clientID): clientID
        case .delegatedAccessToken(_, let clientID): clientID
        case .appOnlyAccessToken(_, let clientID): clientID
        }
    }

    /// `id_token`, `access_token_v1`, `app_token_v2`, …: how `token verify` names the kind.
    public var name: String {
        switch self {
        case .idToken: "id_token"
        case .delegatedAccessToken(let version, _): "access_token_" + (version == .v1 ? "v1" : "v2")
        case .appOnlyAccessToken(let version, _): "app_token_" + (version == .v1 ? "v1" : "v2")
        }
    }
}

extension JWTClaims {
    /// Entra's groups overage (ID and access token claims reference): more groups than the token
    /// carries, signalled by `_claim_names` naming `groups` (its source in `_claim_sources`) or,
    /// in tokens of the implicit flow, `hasgroups: true`.
    public var hasGroupsOverage: Bool {
        if case .bool(true)? = self["hasgroups"] { return true }
        if case .object(let names)? = self["_claim_names"], names["groups"] != nil { return true }
        return false
    }
}
