import AppNativeAuth
public import AppNativeCrypto
public import AppNativeJSON
import Foundation

/// A stand-in for Entra ID in development and tests: signs RS256 tokens shaped like Entra ID
/// tokens with the dev key in `keys/dev/` and publishes its JWKS. `DevSignInServer` serves it as an
/// OpenID provider for the browser sign-in (discovery, a sign-in page of dev users, token endpoint).
///
/// DEV ONLY. The key is committed to the repository; a gateway configured with this tenant
/// accepts tokens anyone can mint.
public struct DevIdentityProvider: Sendable {
    /// The dev tenant (a GUID nobody owns).
    public static let tenantID = "d0d0d0d0-0000-4000-8000-00000000de01"
    /// The dev iOS app's client id, used as the ID-token audience.
    public static let audience = "appnative-dev-ios-app"
    public static let keyID = "appnative-dev-1"
    /// Path of the dev key relative to the repository root.
    public static let keyPath = "keys/dev/entra-dev-rsa.pem"

    public let signingKey: RSAPrivateKey
    public let keyID: String

    public init(signingKey: RSAPrivateKey, keyID: String = DevIdentityProvider.keyID) {
        self.signingKey = signingKey
        self.keyID = keyID
    }

    /// Loads the dev key from `keysDirectory/dev/entra-dev-rsa.pem`.
    public static func load(repositoryRoot: String) throws -> DevIdentityProvider {
        let pem = try String(contentsOfFile: repositoryRoot + "/" + keyPath, encoding: .utf8)
        return DevIdentityProvider(signingKey: try RSAPrivateKey(pem: pem))
    }

    /// A user for dev tokens. The default name is not ASCII on purpose: it must survive every hop.
    public struct User: Sendable {
        public var objectID = "11111111-2222-4333-8444-555555555555"
        public var email = "dev.user@example.com"
        public var name = "Zoë Müller-Łukasz"
        public var roles: [String] = []
        /// Group object ids, in the token's `groups` claim when not empty.
        public var groups: [String] = []

        public init() {}
    }

    /// Mints an ID token for `user`, valid from `now` for `lifetime`.
    public func token(
        for user: User = User(),
        issuedAt now: Double,
        lifetime: Duration = .seconds(3600),
        audience: String = DevIdentityProvider.audience,
        tenantID: String = DevIdentityProvider.tenantID
    ) throws -> String {
        let issuedAt = Int64(now)
        var claims = JSONObject()
        claims["aud"] = .string(audience)
        claims["iss"] = .string("https://login.microsoftonline.com/\(tenantID)/v2.0")
        claims["iat"] = .number(JSONNumber(issuedAt))
        claims["nbf"] = .number(JSONNumber(issuedAt))
        claims["exp"] = .number(JSONNumber(issuedAt + lifetime.components.seconds))
        claims["sub"] = .string("dev-subject-" + user.objectID.prefix(8))
        claims["oid"] = .string(user.objectID)
        claims["tid"] = .string(tenantID)
        claims["email"] = .string(user.email)
        claims["preferred_username"] = .string(user.email)
        claims["name"] = .string(user.name)
        claims["ver"] = .string("2.0")
        if !user.roles.isEmpty { claims["roles"] = .array(user.roles.map(JSONValue.string)) }
        if !user.groups.isEmpty { claims["groups"] = .array(user.groups.map(JSONValue.string)) }
        return try JWTSigner.sign(claims, with: .rsa(signingKey, keyID: keyID))
    }

    /// Signs any claim set with the dev key (RS256, the dev `kid`): the token shapes of
    /// `EntraTokenShapes`, or a test's own. DEV AND TEST ONLY.
    public func token(claims: JSONObject) throws -> String {
        try JWTSigner.sign(claims, with: .rsa(signingKey, keyID: keyID))
    }

    /// The JWKS document publishing the dev key (what Entra serves at `discovery/v2.0/keys`).
    public var jwksDocument: String {
        let publicKey = signingKey.publicKey
        var jwk = JSONObject()
        jwk["kty"] = .string("RSA")
        jwk["use"] = .string("sig")
        jwk["kid"] = .string(keyID)
        jwk["n"] = .string(Base64URL.encode(publicKey.modulus))
        jwk["e"] = .string(Base64URL.encode(publicKey.exponent))
        var document = JSONObject()
        document["keys"] = .array([.object(jwk)])
        return JSONSerializer.string(.object(document))
    }
}
