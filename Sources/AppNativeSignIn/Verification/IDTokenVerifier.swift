public import AppNativeAuth
public import AppNativeCore
import AppNativeCrypto

/// Verifies the ID token the token endpoint returned, with the rules the Bearer verifier applies
/// to app tokens (RS256 pinned, signature against the cached key set, `exp`/`nbf`/`iat` with
/// leeway, maximum lifetime, `iss`, `aud`, `tid`, `oid`, an email claim) plus what OpenID Connect
/// Core §3.1.3.7 adds for a sign-in: the `nonce` of this attempt; an `aud` (a string or an array)
/// that contains the client id and no other audience (none is trusted besides the client); `azp`
/// required when `aud` has several values and equal to the client id whenever present; and a
/// token without `kid` accepted when the provider's key set holds exactly one key. The issuer is
/// the discovery document's `issuer`.
public final class IDTokenVerifier: Sendable {
    public let issuer: String
    public let clientID: String
    /// The tenant GUID, lower-cased (the same `ENTRA_TENANT_ID` the Bearer path checks).
    public let tenantID: String
    /// The key set at the discovery document's `jwks_uri`.
    public let keys: JWKSCache
    private let time: any TimeSource
    private let policy: JWTPolicy

    public init(
        issuer: String, clientID: String, tenantID: String, keys: JWKSCache, leeway: Duration = .seconds(60),
        maxLifetime: Duration = .seconds(86400), time: any TimeSource = SystemTimeSource()
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.tenantID = tenantID.lowercased()
        self.keys = keys
        self.time = time
        policy = JWTPolicy(
            algorithm: .rs256, issuers: [issuer], audiences: [clientID], requiredClaims: ["nonce"], leeway: leeway,
            maxLifetime: maxLifetime, requiresKeyID: false)
    }

    /// The identity in `token`, issued for the attempt whose nonce is `nonce`.
    ///
    /// - Throws: `.tokenInvalid(check:)` naming the failed check, `.wrongTenant`, or `.notReady`
    ///   while the provider's keys have not loaded.
    public func verify(_ token: Secret<String>, nonce: Secret<String>) async throws(SignInFailure) -> VerifiedIdentity {
        let unverified: UnverifiedJWT
        do {
            unverified = try UnverifiedJWT(token.revealed, policy: policy)
        } catch {
            throw .tokenInvalid(check: error.code.description)
        }
        let keyID = try keyID(for: unverified)
        let key: RSAPublicKey
        do {
            key = try await keys.key(for: keyID)
        } catch {
            throw error.code == .keysUnavailable ? .notReady : .tokenInvalid(check: error.code.description)
        }
        let claims: JWTClaims
        do {
            claims = try unverified.verify(with: .rsa(key), policy: policy, now: time.wallSeconds)
        } catch {
            throw .tokenInvalid(check: error.code.description)
        }
        return try identity(from: claims, nonce: nonce)
    }

    /// The token's `kid`; without one, the only key of the set (OpenID Connect Core §10.1: a
    /// `kid` is required only when the set holds several keys).
    private func keyID(for unverified: UnverifiedJWT) throws(SignInFailure) -> String {
        if let keyID = unverified.keyID {
            guard !keyID.isEmpty, keyID.utf8.count <= 256 else { throw .tokenInvalid(check: "kid") }
            return keyID
        }
        let known = keys.keyIDs
        if known.isEmpty { throw .notReady }
        guard known.count == 1, let only = known.first else { throw .tokenInvalid(check: "no_kid") }
        return only
    }

    /// §3.1.3.7 items 3 to 5. The policy already found the client among the audiences; here every
    /// other audience is refused (a token also meant for another party is not this client's
    /// alone, and no extra audience is trusted), several audiences need an `azp`, and an `azp`
    /// must name this client.
    private func checkAudience(_ claims: JWTClaims) throws(SignInFailure) {
        let audiences = claims.stringList("aud") ?? claims.string("aud").map { [$0] } ?? []
        guard audiences.contains(clientID) else { throw .tokenInvalid(check: "audience") }
        guard audiences.allSatisfy({ $0 == clientID }) else { throw .tokenInvalid(check: "audience_untrusted") }
        if audiences.count > 1, !claims.contains("azp") { throw .tokenInvalid(check: "azp_missing") }
        if claims.contains("azp") {
            guard claims.string("azp") == clientID else { throw .tokenInvalid(check: "azp") }
        }
    }

    private func identity(from claims: JWTClaims, nonce: Secret<String>) throws(SignInFailure) -> VerifiedIdentity {
        guard let tokenNonce = claims.string("nonce"),
            ConstantTime.equals(Array(tokenNonce.utf8), Array(nonce.revealed.utf8))
        else { throw .tokenInvalid(check: "nonce") }
        try checkAudience(claims)
        guard let tenant = claims.nonBlankString("tid"), tenant.lowercased() == tenantID else { throw .wrongTenant }
        guard let objectID = claims.nonBlankString("oid") else { throw .tokenInvalid(check: "missing_oid") }
        guard let email = ["email", "preferred_username", "upn"].lazy.compactMap(claims.nonBlankString).first else {
            throw .tokenInvalid(check: "missing_email")
        }
        guard case .seconds(let expiresAt) = claims.numericDate("exp") else { throw .tokenInvalid(check: "invalid") }
        let user = UserIdentity(
            objectID: objectID, email: email, tenantID: tenantID, name: claims.nonBlankString("name"),
            upn: claims.nonBlankString("upn"), roles: claims.stringList("roles") ?? [], groups: claims.stringList("groups") ?? [],
            clientID: clientID, hasGroupsOverage: claims.hasGroupsOverage)
        return VerifiedIdentity(user: user, method: .token, expiresAt: expiresAt)
    }
}
