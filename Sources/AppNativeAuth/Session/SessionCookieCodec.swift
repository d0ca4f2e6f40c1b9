public import AppNativeCore
import AppNativeCrypto
import AppNativeHTTP
import AppNativeJSON

/// Issues and reads the stateless session cookie of contract/auth.md §8: an HS256 JWT whose claims match
/// the Python reference, so replicas in either language read each other's cookies.
public final class SessionCookieCodec: Sendable {
    /// The constant `aud` of every session cookie.
    public static let audience = "bmsdna-app-native-session"

    public let settings: SessionCookieSettings
    /// Cookies of another tenant are treated as absent.
    public let tenantID: String
    private let time: any TimeSource
    private let policy: JWTPolicy
    /// Cookies already verified, by value (`CredentialKey`): a WebView sends the same cookie on
    /// every request until it is renewed. Expiry is checked on every hit.
    private let verified: VerifiedCookieCache
    /// The last `Set-Cookie` value per user and the second it was built in.
    private let issued = Locked<[UserIdentity: (second: Int64, header: String)]>([:])

    public init(
        settings: SessionCookieSettings,
        tenantID: String,
        time: any TimeSource = SystemTimeSource(),
        cacheCapacity: Int = 10_000
    ) {
        self.settings = settings
        verified = VerifiedCookieCache(capacity: cacheCapacity)
        self.tenantID = tenantID.lowercased()
        self.time = time
        policy = JWTPolicy(
            algorithm: .hs256,
            issuers: nil,
            audiences: [Self.audience],
            requiredClaims: ["sub"],
            leeway: settings.leeway,
            maxLifetime: nil,
            requiresKeyID: false
        )
    }

    /// The cookie value for `user`, signed with the first secret (contract/auth.md §8.2).
    public func value(for user: UserIdentity) -> String {
        let issuedAt = Int64(time.wallSeconds.rounded(.down))
        var claims = JSONObject()
        claims["aud"] = .string(Self.audience)
        claims["sub"] = .string(user.objectID)
        // A user always has an email; an application never gets a cookie (without `email` it
        // would not verify anyway).
        if let email = user.email { claims["email"] = .string(email) }
        claims["tid"] = .string(user.tenantID)
        claims["iat"] = .number(JSONNumber(issuedAt))
        claims["exp"] = .number(JSONNumber(issuedAt + settings.maxAge.components.seconds))
        if let name = user.name, !name.isEmpty { claims["name"] = .string(name) }
        if let upn = user.upn, !upn.isEmpty { claims["upn"] = .string(upn) }
        if !user.roles.isEmpty { claims["roles"] = .array(user.roles.map(JSONValue.string)) }
        Self.addCallerClaims(of: user, to: &claims)
        do {
            return try JWTSigner.sign(claims, with: .hmac(settings.keys[0]))
        } catch {
            preconditionFailure("HMAC signing cannot fail: \(error.code)")
        }
    }

    /// The `Set-Cookie` header value that issues a fresh cookie (contract/auth.md §8.3).
    ///
    /// `iat` has one-second resolution, so within a second the header for a user is byte-for-byte
    /// the same: it is built once per user and second (JSON, HMAC and base64 run once, not on
    /// every token-authenticated response).
    public func setCookieHeader(for user: UserIdentity) -> String {
        let second = currentSecond
        if let cached = issued.withLock({ $0[user] }), cached.second == second { return cached.header }
        let header = "\(settings.name)=\(value(for: user)); \(attributes(maxAge: settings.maxAge.components.seconds))"
        issued.withLock { cache in
            if cache.count > 10_000 { cache.removeAll(keepingCapacity: true) }
            cache[user] = (second, header)
        }
        return header
    }

    /// The second a cookie issued now carries as `iat`: a caller holding a `Set-Cookie` value built
    /// in the same second may send it again, byte for byte what `setCookieHeader(for:)` gives.
    public var currentSecond: Int64 { Int64(time.wallSeconds.rounded(.down)) }

    /// The `Set-Cookie` header value that clears the cookie.
    public func clearCookieHeader() -> String {
        "\(settings.name)=; \(attributes(maxAge: 0)); Expires=Thu, 01 Jan 1970 00:00:00 GMT"
    }

    private func attributes(maxAge: Int64) -> String {
        var text = "HttpOnly; Max-Age=\(maxAge); Path=/; SameSite=\(settings.sameSite.rawValue)"
        if settings.isSecure { text += "; Secure" }
        return text
    }

    /// Reads the session from `Cookie` header values (contract/auth.md §8.4). Any failure is "no cookie".
    public func identity(fromCookieHeaders headers: [String]) -> VerifiedIdentity? {
        for candidate in CookieHeader.values(named: settings.name, in: headers) {
            if let identity = try? identity(fromValue: candidate) { return identity }
        }
        return nil
    }

    /// `identity(fromCookieHeaders:)` for one `Cookie` field given as its bytes: a cookie already
    /// verified is answered without building a `String` for the field or the value. The caller
    /// passes only fields without obs-text (those go through the string entry point).
    public func identity(fromCookieField field: UnsafeBufferPointer<UInt8>) -> VerifiedIdentity? {
        var found: VerifiedIdentity?
        CookieHeader.forEachValue(named: settings.name, in: field) { value in
            let bytes = UnsafeRawBufferPointer(value)
            guard !bytes.isEmpty else { return true }
            let now = time.wallSeconds
            let outcome = cachedIdentity(for: CredentialKey(utf8: bytes), now: now)
            switch outcome {
            case .some(.success(let identity)):
                found = identity
            case .some(.failure):
                break  // expired: the next cookie of that name may still do
            case nil:
                found = try? verifiedAndCached(String(decoding: bytes, as: UTF8.self), now: now)
            }
            return found == nil
        }
        return found
    }

    /// Verifies one cookie value.
    ///
    /// - Throws: `AuthError` naming the failed check (for `cookie inspect` and logs); callers on the
    ///   request path treat any error as "no cookie".
    public func identity(fromValue value: String) throws(AuthError) -> VerifiedIdentity {
        guard !value.isEmpty else { throw AuthError(.notAuthenticated, "session cookie empty") }
        let now = time.wallSeconds
        if let cached = cachedIdentity(for: CredentialKey(value), now: now) { return try cached.get() }
        return try verifiedAndCached(value, now: now)
    }

    /// Verifies a cookie value the cache does not hold, and caches it.
    private func verifiedAndCached(_ value: String, now: Double) throws(AuthError) -> VerifiedIdentity {
        let identity = try verify(value, now: now)
        verified.insert(identity, for: CredentialKey(value))
        return identity
    }

    /// The identity of a cookie in the verified cache (expiry checked again; an expired entry is
    /// dropped), `nil` when it is not there.
    private func cachedIdentity(for key: CredentialKey, now: Double) -> Result<VerifiedIdentity, AuthError>? {
        guard let cached = verified.identity(for: key) else { return nil }
        if cached.expiresAt > now - settings.leeway.seconds { return .success(cached) }
        verified.remove(key)
        return .failure(AuthError(.expired, "session cookie expired"))
    }

    private func verify(_ value: String, now: Double) throws(AuthError) -> VerifiedIdentity {
        let unverified = try UnverifiedJWT(value, policy: policy)
        var claims: JWTClaims?
        for key in settings.keys {
            do {
                claims = try unverified.verify(with: .hmac(key), policy: policy, now: now)
                break
            } catch where error.code == .signature {
                continue
            }
        }
        guard let claims else { throw AuthError(.signature, "session cookie MAC does not verify with any secret") }
        guard let subject = claims.nonBlankString("sub"), let email = claims.nonBlankString("email"),
            let tenant = claims.nonBlankString("tid")
        else {
            throw AuthError(.invalid, "session cookie lacks sub, email or tid")
        }
        guard tenant.lowercased() == tenantID else { throw AuthError(.tenant, "session cookie is for another tenant") }
        guard case .seconds(let expiresAt) = claims.numericDate("exp") else {
            throw AuthError(.invalid, "session cookie exp is not a number")
        }
        var user = UserIdentity(
            objectID: subject,
            email: email,
            tenantID: tenant.lowercased(),
            name: claims.nonBlankString("name"),
            upn: claims.nonBlankString("upn"),
            roles: claims.stringList("roles") ?? []
        )
        Self.readCallerClaims(claims, into: &user)
        return VerifiedIdentity(user: user, method: .cookie, expiresAt: expiresAt)
    }
}

/// The LRU of verified cookies behind a lock (shared by every loop).
final class VerifiedCookieCache: Sendable {
    private let storage: Locked<LRUStorage<CredentialKey, VerifiedIdentity>>

    init(capacity: Int) {
        storage = Locked(LRUStorage(capacity: capacity))
    }

    func identity(for key: CredentialKey) -> VerifiedIdentity? { storage.withLock { $0.value(for: key) } }
    func insert(_ identity: VerifiedIdentity, for key: CredentialKey) { storage.withLock { $0.insert(identity, for: key) } }
    func remove(_ key: CredentialKey) { storage.withLock { $0.remove(key) } }
}
