public import AppNativeCore
public import AppNativeCrypto
import AppNativeJSON

/// Signs the identity assertion passed to upstreams: a short-lived ES256 JWT (issuer, audience,
/// subject = oid, email (users only), name, tenant, upn, roles, `idtyp` (`user`/`app`), `azp`
/// (the client application), auth method, iat, exp) that any JOSE library verifies
/// with the keys the gateway publishes at its JWKS path.
///
/// Keys rotate: every configured key is published, the first one signs. ECDSA signing costs
/// more than the rest of a request's identity work, so an assertion is reused per identity
/// while more than half of its lifetime is left. "Per identity" means the whole identity (`CacheKey`): an assertion is
/// reused only for an identity equal in every field to the one it was signed for, so it always
/// states what the plain identity headers rendered from the same identity state (a role change
/// gets a new assertion at once).
public final class IdentityAssertionSigner: Sendable {
    public let issuer: String
    public let audience: String
    public let lifetime: Duration
    private let keys: [(key: P256SigningKey, keyID: String)]
    private let time: any TimeSource
    private let cache: Locked<[CacheKey: (token: String, expiresAt: Double)]>
    /// The most identities remembered; past it, the assertions no longer reusable are dropped,
    /// and everything when most are still live (so an insertion costs O(1) amortised).
    private let cacheLimit: Int

    /// What an assertion is signed from: the whole identity, compared field by field.
    /// `UserIdentity`'s equality covers every field it has (object id, tenant, email, name, upn,
    /// roles, groups), so nothing the assertion states, and nothing added to the identity later,
    /// can be left out of the key; fields are compared as values, never joined into one string
    /// that two different identities could both produce.
    struct CacheKey: Hashable, Sendable {
        let user: UserIdentity
        let method: AuthenticationMethod
    }

    /// - Parameters:
    ///   - keys: the assertion keys; the first signs, all are published.
    ///   - issuer: the `iss` claim.
    ///   - audience: the `aud` claim (`ASSERTION_AUDIENCE`).
    ///   - lifetime: from `iat` to `exp`.
    ///   - time: the clock `iat`, `exp` and reuse are read from.
    ///   - cacheLimit: the most identities whose assertion is kept for reuse.
    public init(
        keys: [P256SigningKey],
        issuer: String = "app-native-gateway",
        audience: String,
        lifetime: Duration = .seconds(300),
        time: any TimeSource = SystemTimeSource(),
        cacheLimit: Int = 50_000
    ) {
        precondition(!keys.isEmpty, "at least one assertion key")
        self.keys = keys.map { ($0, Self.thumbprint(of: $0.publicKey)) }
        self.issuer = issuer
        self.audience = audience
        self.lifetime = lifetime
        self.time = time
        self.cacheLimit = max(cacheLimit, 1)
        cache = Locked([:])
    }

    /// The assertion for `identity`, fresh or reused.
    public func assertion(for identity: VerifiedIdentity) -> String {
        signedAssertion(for: identity).token
    }

    /// Whether an assertion expiring at `expiresAt` may still be handed out: more than half of
    /// its lifetime is left (the rule `assertion(for:)` applies to its own cache).
    public func isReusable(expiringAt expiresAt: Double) -> Bool {
        expiresAt - time.wallSeconds > lifetime.seconds / 2
    }

    /// The assertion for `identity`, fresh or reused, with its `exp`, so a caller that keeps
    /// it (with headers rendered from it) can apply `isReusable(expiringAt:)`.
    public func signedAssertion(for identity: VerifiedIdentity) -> (token: String, expiresAt: Double) {
        let now = time.wallSeconds
        let user = identity.user
        let cacheKey = CacheKey(user: user, method: identity.method)
        if let cached = cache.withLock({ $0[cacheKey] }), cached.expiresAt - now > lifetime.seconds / 2 {
            return cached
        }
        let issuedAt = Int64(now)
        let expiresAt = issuedAt + lifetime.components.seconds
        var claims = JSONObject()
        claims["iss"] = .string(issuer)
        claims["aud"] = .string(audience)
        claims["sub"] = .string(user.objectID)
        if let email = user.email { claims["email"] = .string(email) }
        if let name = user.name { claims["name"] = .string(name) }
        claims["tid"] = .string(user.tenantID)
        if let upn = user.upn { claims["upn"] = .string(upn) }
        if !user.roles.isEmpty { claims["roles"] = .array(user.roles.map(JSONValue.string)) }
        claims["idtyp"] = .string(user.callerType.rawValue)
        if let clientID = user.clientID { claims["azp"] = .string(clientID) }
        claims["amr"] = .string(identity.method.rawValue)
        claims["iat"] = .number(JSONNumber(issuedAt))
        claims["exp"] = .number(JSONNumber(expiresAt))
        let token: String
        do {
            token = try JWTSigner.sign(claims, with: .p256(keys[0].key, keyID: keys[0].keyID))
        } catch {
            preconditionFailure("ES256 signing with a validated key failed: \(error.code)")
        }
        let reusableAfter = now + lifetime.seconds / 2
        cache.withLock { cache in
            if cache.count >= cacheLimit, cache[cacheKey] == nil {
                cache = cache.filter { $0.value.expiresAt > reusableAfter }
                if cache.count >= cacheLimit / 2 { cache.removeAll(keepingCapacity: true) }
            }
            cache[cacheKey] = (token, Double(expiresAt))
        }
        return (token, Double(expiresAt))
    }

    /// How many identities have an assertion kept for reuse.
    var cachedIdentityCount: Int { cache.withLock { $0.count } }

    /// The JWKS document with every configured public key (the signing one first).
    public var jwksDocument: String {
        let entries: [JSONValue] = keys.map { entry in
            var jwk = JSONObject()
            jwk["kty"] = .string("EC")
            jwk["crv"] = .string("P-256")
            jwk["x"] = .string(Base64URL.encode(entry.key.publicKey.x))
            jwk["y"] = .string(Base64URL.encode(entry.key.publicKey.y))
            jwk["kid"] = .string(entry.keyID)
            jwk["use"] = .string("sig")
            jwk["alg"] = .string("ES256")
            return .object(jwk)
        }
        var document = JSONObject()
        document["keys"] = .array(entries)
        return JSONSerializer.string(.object(document))
    }

    /// RFC 7638 JWK thumbprint (SHA-256 over the required members in lexicographic order).
    static func thumbprint(of key: P256PublicKey) -> String {
        let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(Base64URL.encode(key.x))\",\"y\":\"\(Base64URL.encode(key.y))\"}"
        return Base64URL.encode(SHA256.hash(canonical))
    }
}
