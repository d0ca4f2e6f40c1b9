import AppNativeAuth
public import AppNativeCrypto
import AppNativeJSON

extension DevIdentityProvider {
    /// The client id of the dev web app registration that signs browsers in (`ENTRA_CLIENT_ID`
    /// of `make run`); the ID tokens of the dev sign-in name it in `aud`.
    public static let signInClientID = "appnative-dev-web-app"
    /// The client secret the dev identity provider accepts for `signInClientID`. DEV ONLY: it is in
    /// the repository.
    public static let signInClientSecret = "appnative-dev-web-secret-not-for-production"

    /// Mints the ID token of a browser sign-in (OpenID Connect Core §2): `iss` is the dev identity
    /// provider's own issuer, `aud` the client, `nonce` echoed, and Entra's identity claims.
    /// `extraAudiences` and `authorizedParty` are for tests of the client's audience checks.
    public func signInIDToken(
        for user: DevSignInUser,
        issuer: String,
        clientID: String,
        nonce: String?,
        issuedAt now: Double,
        lifetime: Duration = .seconds(3600),
        extraAudiences: [String] = [],
        authorizedParty: String? = nil
    ) throws(CryptoError) -> String {
        let issuedAt = Int64(now.rounded(.down))
        var claims = JSONObject()
        claims["aud"] = extraAudiences.isEmpty ? .string(clientID) : .array(([clientID] + extraAudiences).map(JSONValue.string))
        if let authorizedParty { claims["azp"] = .string(authorizedParty) }
        claims["iss"] = .string(issuer)
        claims["iat"] = .number(JSONNumber(issuedAt))
        claims["nbf"] = .number(JSONNumber(issuedAt))
        claims["exp"] = .number(JSONNumber(issuedAt + lifetime.components.seconds))
        claims["sub"] = .string("dev-subject-" + user.user.objectID.prefix(8))
        claims["oid"] = .string(user.user.objectID)
        claims["tid"] = .string(user.tenantID)
        claims["email"] = .string(user.user.email)
        claims["preferred_username"] = .string(user.user.email)
        claims["name"] = .string(user.user.name)
        claims["ver"] = .string("2.0")
        if let nonce { claims["nonce"] = .string(nonce) }
        if !user.user.roles.isEmpty { claims["roles"] = .array(user.user.roles.map(JSONValue.string)) }
        if !user.user.groups.isEmpty { claims["groups"] = .array(user.user.groups.map(JSONValue.string)) }
        return try JWTSigner.sign(claims, with: .rsa(signingKey, keyID: keyID))
    }
}
