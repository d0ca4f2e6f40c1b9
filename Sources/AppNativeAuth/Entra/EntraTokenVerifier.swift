public import AppNativeCore
import AppNativeCrypto
import AppNativeJSON

// Unsafe: `tokenBytes` is the caller's buffer borrowed for the call; it is copied into a String or a
// cache key before anything outlives the call.

/// Verifies Entra ID tokens with every check of contract/auth.md §3 in its order and produces the
/// identity of §5. Failures carry the reason code for logs; the HTTP answer comes from
/// `AuthError.bearerStatus`.
public final class EntraTokenVerifier: Sendable {
    public let configuration: EntraConfiguration
    public let keys: JWKSCache
    private let tokenCache: VerifiedTokenCache
    private let time: any TimeSource
    private let policy: JWTPolicy

    /// - Parameters:
    ///   - keys: the tenant's key cache; build it with `makeKeyCache` so key removals reach the token cache.
    ///   - tokenCache: tokens already verified (pass the one wired into `keys`).
    public init(configuration: EntraConfiguration, keys: JWKSCache, tokenCache: VerifiedTokenCache, time: any TimeSource) {
        self.configuration = configuration
        self.keys = keys
        self.tokenCache = tokenCache
        self.time = time
        policy = configuration.policy
    }

    /// A verifier whose key cache downloads from `fetcher` and whose token cache forgets tokens
    /// whose key left the key set.
    public convenience init(
        configuration: EntraConfiguration,
        fetcher: any JWKSFetching,
        cacheConfiguration: JWKSCacheConfiguration = .init(),
        tokenCacheCapacity: Int = 10_000,
        time: any TimeSource = SystemTimeSource(),
        logger: Logger = Logger(),
        metrics: MetricsRegistry = .shared
    ) {
        let tokenCache = VerifiedTokenCache(capacity: tokenCacheCapacity, metrics: metrics)
        let keys = JWKSCache(
            fetcher: fetcher,
            configuration: cacheConfiguration,
            time: time,
            logger: logger,
            metrics: metrics,
            onKeysRemoved: { removed in tokenCache.removeEntries(verifiedWith: removed) }
        )
        self.init(configuration: configuration, keys: keys, tokenCache: tokenCache, time: time)
    }

    /// Outcome of a verification attempt that must not wait (event-loop fast path).
    public enum ImmediateVerification: Sendable {
        case verified(VerifiedIdentity)
        case failed(AuthError)
        /// The key set is being reloaded for this token's `kid`: call `verify(_:)` and await it.
        case mustWait
    }

    /// Verifies `token` without waiting for a key reload.
    public func verifyImmediately(_ token: String) -> ImmediateVerification {
        let key = CredentialKey(token)
        if let cached = cachedVerdict(for: key) { return cached }
        return verifyUncached(token, cacheKey: key)
    }

    /// `verifyImmediately` for a token given as its UTF-8 bytes (an `Authorization` field read in
    /// place): a token already verified is answered without building its `String`, which the app's
    /// repeated token would otherwise cost on every request.
    public func verifyImmediately(tokenBytes: UnsafeRawBufferPointer) -> ImmediateVerification {
        if let cached = unsafe cachedVerdict(for: CredentialKey(utf8: tokenBytes)) { return cached }
        let token = unsafe String(decoding: tokenBytes, as: UTF8.self)
        return verifyUncached(token, cacheKey: CredentialKey(token))
    }

    /// The verdict for a token in the cache (its expiry checked again), `nil` when it is not there.
    private func cachedVerdict(for key: CredentialKey) -> ImmediateVerification? {
        guard let cached = tokenCache.entry(for: key) else { return nil }
        // Expiry is checked on every hit with the same rule as a fresh verification.
        if cached.identity.expiresAt > time.wallSeconds - policy.leeway.seconds { return .verified(cached.identity) }
        tokenCache.remove(key)
        return .failed(AuthError(.expired, "token expired"))
    }

    private func verifyUncached(_ token: String, cacheKey key: CredentialKey) -> ImmediateVerification {
        let unverified: UnverifiedJWT
        do {
            unverified = try UnverifiedJWT(token, policy: policy)
        } catch {
            return .failed(error)
        }
        switch keys.immediateKey(for: unverified.keyID ?? "") {
        case .key(let signingKey):
            switch complete(unverified, key: signingKey, cacheKey: key) {
            case .success(let identity): return .verified(identity)
            case .failure(let error): return .failed(error)
            }
        case .failure(let error): return .failed(error)
        case .mustWait: return .mustWait
        }
    }

    /// The kind of a token this verifier has verified and still holds in its cache (`token verify`
    /// explains it); `nil` otherwise.
    public func verifiedKind(of token: String) -> EntraTokenKind? {
        tokenCache.entry(for: CredentialKey(token))?.kind
    }

    /// Verifies `token`, waiting for a key reload when its `kid` is unknown and a reload is allowed.
    ///
    /// - Throws: `AuthError`; `.keysUnavailable` maps to 503, `.scope` to 403, everything else to 401.
    public func verify(_ token: String) async throws(AuthError) -> VerifiedIdentity {
        switch verifyImmediately(token) {
        case .verified(let identity): return identity
        case .failed(let error): throw error
        case .mustWait: break
        }
        let unverified = try UnverifiedJWT(token, policy: policy)
        let key = try await keys.key(for: unverified.keyID ?? "")
        return try complete(unverified, key: key, cacheKey: CredentialKey(token)).get()
    }

    /// Steps 6–17 with the key in hand: nothing is left to wait for.
    private func complete(_ unverified: UnverifiedJWT, key: RSAPublicKey, cacheKey: CredentialKey) -> Result<VerifiedIdentity, AuthError> {
        do throws(AuthError) {
            let claims = try unverified.verify(with: .rsa(key), policy: policy, now: time.wallSeconds)
            let kind = try EntraTokenKind.classify(claims, configuration: configuration)
            let identity = try identity(from: claims, kind: kind)
            tokenCache.insert(.init(identity: identity, keyID: unverified.keyID ?? "", kind: kind), for: cacheKey)
            return .success(identity)
        } catch {
            return .failure(error)
        }
    }

    /// contract/auth.md §3 steps 14–17 and §5.
    /// `kind` is step 14 (the kind and its rules, `EntraTokenKind.classify`), which runs before
    /// 15–17: a token without the scope gets 403 even if oid/email are missing.
    private func identity(from claims: JWTClaims, kind: EntraTokenKind) throws(AuthError) -> VerifiedIdentity {
        // Step 15.
        guard let tenant = claims.nonBlankString("tid"), tenant.lowercased() == configuration.tenantID else {
            throw AuthError(.tenant, "tid is not the configured tenant")
        }
        // Step 16: numbers don't count. An application's oid is its service principal's.
        guard let objectID = claims.nonBlankString("oid") else { throw AuthError(.missingOID, "oid claim missing or blank") }
        let roles = claims.stringList("roles") ?? []
        let groups = claims.stringList("groups") ?? []
        let user: UserIdentity
        switch kind {
        case .appOnlyAccessToken(_, let clientID):
            // App-only tokens carry no email: step 17 is a user's.
            user = .application(
                servicePrincipalID: objectID, clientID: clientID, tenantID: configuration.tenantID, roles: roles, groups: groups,
                hasGroupsOverage: claims.hasGroupsOverage)
        case .idToken, .delegatedAccessToken:
            // Step 17.
            guard let email = ["email", "preferred_username", "upn"].lazy.compactMap(claims.nonBlankString).first else {
                throw AuthError(.missingEmail, "no email, preferred_username or upn claim")
            }
            user = UserIdentity(
                objectID: objectID,
                email: email,
                tenantID: configuration.tenantID,
                name: claims.nonBlankString("name"),
                upn: claims.nonBlankString("upn"),
                roles: roles,
                groups: groups,
                clientID: kind.clientID,
                hasGroupsOverage: claims.hasGroupsOverage
            )
        }
        guard case .seconds(let expiresAt) = claims.numericDate("exp") else {
            throw AuthError(.invalid, "claim exp is not a number")
        }
        return VerifiedIdentity(user: user, method: .token, expiresAt: expiresAt)
    }
}
