/// Who the caller is, as verified from an Entra token or a session cookie (contract/auth.md §5).
///
/// Key users by `objectID` (+ `tenantID`), never by email: email is display data.
public struct UserIdentity: Sendable, Hashable {
    /// The fields live in one shared, immutable box: the request path copies an identity several
    /// times per request (token cache → outcome → identity header and cookie caches), and a copy
    /// is then one reference count instead of one per string and list. Mutation copies the box
    /// when it is shared (value semantics as before).
    private final class Storage: Sendable {
        let objectID: String
        let email: String
        let tenantID: String
        let name: String?
        let upn: String?
        let roles: [String]
        let groups: [String]
        /// The hash of the object id and tenant, computed once: the identity caches on the request
        /// path hash the same identity on every request.
        let identityHash: Int

        init(objectID: String, email: String, tenantID: String, name: String?, upn: String?, roles: [String], groups: [String]) {
            self.objectID = objectID
            self.email = email
            self.tenantID = tenantID
            self.name = name
            self.upn = upn
            self.roles = roles
            self.groups = groups
            var hasher = Hasher()
            hasher.combine(objectID)
            hasher.combine(tenantID)
            identityHash = hasher.finalize()
        }

        func with(
            objectID: String? = nil, email: String? = nil, tenantID: String? = nil, name: String?? = nil,
            upn: String?? = nil, roles: [String]? = nil, groups: [String]? = nil
        ) -> Storage {
            Storage(
                objectID: objectID ?? self.objectID, email: email ?? self.email, tenantID: tenantID ?? self.tenantID,
                name: name ?? self.name, upn: upn ?? self.upn, roles: roles ?? self.roles, groups: groups ?? self.groups
            )
        }
    }

    private var storage: Storage

    /// The `oid` claim, trimmed: the user's immutable object id in the tenant.
    public var objectID: String {
        get { storage.objectID }
        set { storage = storage.with(objectID: newValue) }
    }
    /// First non-blank of `email`, `preferred_username`, `upn` (not lower-cased).
    public var email: String {
        get { storage.email }
        set { storage = storage.with(email: newValue) }
    }
    /// The configured tenant (lower-case), not the token's spelling.
    public var tenantID: String {
        get { storage.tenantID }
        set { storage = storage.with(tenantID: newValue) }
    }
    /// `name` trimmed; `nil` when blank.
    public var name: String? {
        get { storage.name }
        set { storage = storage.with(name: .some(newValue)) }
    }
    /// `upn` trimmed; `nil` when blank.
    public var upn: String? {
        get { storage.upn }
        set { storage = storage.with(upn: .some(newValue)) }
    }
    /// App roles (`roles` claim), for access policies.
    public var roles: [String] {
        get { storage.roles }
        set { storage = storage.with(roles: newValue) }
    }
    /// Group object ids (`groups` claim), for access policies.
    public var groups: [String] {
        get { storage.groups }
        set { storage = storage.with(groups: newValue) }
    }

    public init(
        objectID: String,
        email: String,
        tenantID: String,
        name: String? = nil,
        upn: String? = nil,
        roles: [String] = [],
        groups: [String] = []
    ) {
        storage = Storage(objectID: objectID, email: email, tenantID: tenantID, name: name, upn: upn, roles: roles, groups: groups)
    }

    /// Every field equal; the same box (a copy of one cached identity, the usual case on the
    /// request path) is equal without comparing strings.
    public static func == (lhs: UserIdentity, rhs: UserIdentity) -> Bool {
        if lhs.storage === rhs.storage { return true }
        let a = lhs.storage
        let b = rhs.storage
        return a.objectID == b.objectID && a.tenantID == b.tenantID && a.email == b.email && a.name == b.name
            && a.upn == b.upn && a.roles == b.roles && a.groups == b.groups
    }

    /// Hashes the object id and tenant only (hashed once, when the identity was made): they
    /// identify the user, and the identity caches on the request path hash a user several times
    /// per request. Equality still compares every field, so a changed name or role list is a
    /// different cache entry.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.identityHash)
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
