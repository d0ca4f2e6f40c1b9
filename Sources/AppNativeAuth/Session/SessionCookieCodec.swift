public import AppNativeCore
import AppNativeCrypto
import AppNativeHTTP
import AppNativeJSON

// Unsafe: the Cookie field bytes come from HTTPHeaders' `forEachValueBytes`, valid inside its closure
// only; a cookie value is a range found inside that field, and the cache key and string made from it
// are copies.

/// Issues and reads the stateless session cookie of contract/auth.md §8: an HS256 JWT whose claims match
/// the Python reference, so replicas in either language read each other's cookies.
///
/// The cookie is bound to the deployment that issued it: its `aud` is an array of the reference's
/// constant and this deployment's `SessionCookieSettings.audience`. The reference (PyJWT) accepts an
/// `aud` array that contains its constant, so it still reads the gateway's cookies; the gateway
/// refuses a cookie that names another deployment, and one that names none (the reference's) unless
/// `SessionCookieSettings.acceptsReferenceCookies`.
public final class SessionCookieCodec: Sendable {
    /// The `aud` every session cookie carries (the reference's constant).
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
            leeway: SessionCookieSettings.leeway,
            maxLifetime: nil,
            requiresKeyID: false
        )
    }

    /// The cookie value for `user`, signed with the first secret (contract/auth.md §8.2).
    public func value(for user: UserIdentity) -> String {
        let issuedAt = Int64(time.wallSeconds.rounded(.down))
        var claims = JSONObject()
        claims["aud"] = .array([.string(Self.audience), .string(settings.audience)])
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
        return JWTSigner.sign(claims, withHMAC: settings.keys[0])
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

    /// Reads the session from `Cookie` header values (contract/auth.md §8.4). Any failure is "no
    /// cookie"; several cookies of the name follow `SessionCookieAgreement`.
    public func identity(fromCookieHeaders headers: [String]) -> VerifiedIdentity? {
        try? verdict(fromCookieHeaders: headers)?.get()
    }

    /// The session in `Cookie` header values (`SessionCookieAgreement`), or why there is none: two
    /// users, or the reason the last refused value gave (logged; the answer is "no cookie").
    /// `nil` when no cookie of the name has a value.
    public func verdict(fromCookieHeaders headers: [String]) -> Result<VerifiedIdentity, AuthError>? {
        var agreement = SessionCookieAgreement()
        for candidate in CookieHeader.values(named: settings.name, in: headers) where !candidate.isEmpty {
            do {
                agreement.add(try identity(fromValue: candidate))
            } catch {
                agreement.refuse(error)
            }
            if agreement.isConflicting { break }
        }
        return agreement.verdict
    }

    /// `identity(fromCookieHeaders:)` for one `Cookie` field given as its bytes.
    public func identity(fromCookieField field: UnsafeBufferPointer<UInt8>) -> VerifiedIdentity? {
        unsafe try? verdict(fromCookieField: field)?.get()
    }

    /// `verdict(fromCookieHeaders:)` for one `Cookie` field given as its bytes.
    public func verdict(fromCookieField field: UnsafeBufferPointer<UInt8>) -> Result<VerifiedIdentity, AuthError>? {
        var agreement = SessionCookieAgreement()
        unsafe readSession(fromCookieField: field, into: &agreement)
        return agreement.verdict
    }

    /// Adds every session cookie of one `Cookie` field, given as its bytes, to `agreement`: a
    /// cookie already verified is answered without building a `String` for the field or the
    /// value. The caller passes only fields without obs-text (those go through the string entry
    /// point), and calls this for each field of a request.
    public func readSession(fromCookieField field: UnsafeBufferPointer<UInt8>, into agreement: inout SessionCookieAgreement) {
        unsafe CookieHeader.forEachValue(named: settings.name, in: field) { value in
            let bytes = UnsafeRawBufferPointer(value)
            guard unsafe !bytes.isEmpty else { return true }
            let now = time.wallSeconds
            switch unsafe cachedIdentity(for: CredentialKey(utf8: bytes), now: now) {
            case .some(.success(let identity)):
                agreement.add(identity)
            case .some(.failure(let error)):
                agreement.refuse(error)  // the next cookie of that name may still do
            case nil:
                switch Result(catching: { () throws(AuthError) in unsafe try verifiedAndCached(String(decoding: bytes, as: UTF8.self), now: now) }) {
                case .success(let identity): agreement.add(identity)
                case .failure(let error): agreement.refuse(error)
                }
            }
            return !agreement.isConflicting
        }
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
        // The cookie's own leeway, the same rule as a fresh verification.
        if cached.expiresAt > now - SessionCookieSettings.leeway.seconds { return .success(cached) }
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
        try checkDeployment(claims)
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

extension SessionCookieCodec {
    /// Whether the cookie belongs here: its `aud` (already known to hold the reference's constant)
    /// names this deployment, or names none and reference cookies are accepted.
    ///
    /// - Throws: `AuthError(.deployment)`.
    fileprivate func checkDeployment(_ claims: JWTClaims) throws(AuthError) {
        // The reference's cookie: the constant alone, compared in place.
        if claims.string("aud", isOneOf: [Self.audience]) == true {
            guard settings.acceptsReferenceCookies else {
                throw AuthError(.deployment, "session cookie names no deployment (issued by the reference) and SESSION_ACCEPT_REFERENCE_COOKIES is off")
            }
            return
        }
        let named = claims.stringList("aud") ?? []
        if named.contains(settings.audience) { return }
        if settings.acceptsReferenceCookies, named.allSatisfy({ $0 == Self.audience }) { return }
        throw AuthError(.deployment, "session cookie is bound to another deployment")
    }

    /// The deployments a cookie value's `aud` names besides the reference's constant, read without
    /// verifying anything (for `cookie inspect` to show where a cookie belongs); `nil` when the
    /// payload cannot be read.
    public static func namedDeployments(inUnverifiedValue value: String) -> [String]? {
        let segments = value.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = Base64URL.decode(String(segments[1])),
            let claims = try? JSONParser().parse(payload).objectValue
        else { return nil }
        let values: [JSONValue]
        switch claims["aud"] {
        case .string(let single)?: values = [.string(single)]
        case .array(let array)?: values = array
        default: return nil
        }
        return values.compactMap(\.stringValue).filter { $0 != audience }
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
