/// Who the caller is, as verified from an Entra token or a session cookie (auth.md §5).
///
/// Key users by `objectID` (+ `tenantID`), never by email: email is display data.
public struct UserIdentity: Sendable, Hashable {
    /// The `oid` claim, trimmed: the user's immutable object id in the tenant.
    public var objectID: String
    /// First non-blank of `email`, `preferred_username`, `upn` (not lower-cased).
    public var email: String
    /// The configured tenant (lower-case), not the token's spelling.
    public var tenantID: String
    /// `name` trimmed; `nil` when blank.
    public var name: String?
    /// `upn` trimmed; `nil` when blank.
    public var upn: String?
    /// App roles (`roles` claim), for access policies.
    public var roles: [String]
    /// Group object ids (`groups` claim), for access policies.
    public var groups: [String]

    public init(
        objectID: String,
        email: String,
        tenantID: String,
        name: String? = nil,
        upn: String? = nil,
        roles: [String] = [],
        groups: [String] = []
    ) {
        self.objectID = objectID
        self.email = email
        self.tenantID = tenantID
        self.name = name
        self.upn = upn
        self.roles = roles
        self.groups = groups
    }

    /// Hashes the object id and tenant only: they identify the user, and the identity caches on
    /// the request path hash a user several times per request. Equality still compares every
    /// field, so a changed name or role list is a different cache entry.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(objectID)
        hasher.combine(tenantID)
    }
}

/// How a request proved its identity.
public enum AuthenticationMethod: String, Sendable {
    case token
    case cookie
}

/// A verified identity with the credential's expiry (long-lived connections end with it).
public struct VerifiedIdentity: Sendable, Hashable {
    public var user: UserIdentity
    public var method: AuthenticationMethod
    /// The credential's `exp`, wall-clock seconds.
    public var expiresAt: Double

    public init(user: UserIdentity, method: AuthenticationMethod, expiresAt: Double) {
        self.user = user
        self.method = method
        self.expiresAt = expiresAt
    }
}
