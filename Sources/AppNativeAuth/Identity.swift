/// Who the caller is, as verified from an Entra token or a session cookie (contract/auth.md §5).
///
/// Key callers by `objectID` (+ `tenantID`), never by email: email is display data. A caller is a
/// signed-in user (ID token, delegated access token, session cookie), who always has an email, or
/// an application calling with its own app-only token (`CallerType.app`), which has none: the
/// initialisers keep that rule (`init(objectID:email:…)` makes a user, `application(…)` an app).
public struct UserIdentity: Sendable, Hashable {
    /// The fields live in one shared, immutable box: the request path copies an identity several
    /// times per request (token cache → outcome → identity header and cookie caches), and a copy
    /// is then one reference count instead of one per string and list. Mutation copies the box
    /// when it is shared, so the type keeps value semantics.
    private final class Storage: Sendable {
        let objectID: String
        let email: String?
        let tenantID: String
        let name: String?
        let upn: String?
        let roles: [String]
        let groups: [String]
        let callerType: CallerType
        let clientID: String?
        let hasGroupsOverage: Bool
        /// The hash of the object id and tenant, computed once: the identity caches on the request
        /// path hash the same identity on every request.
        let identityHash: Int

        init(
            objectID: String, email: String?, tenantID: String, name: String?, upn: String?, roles: [String], groups: [String],
            callerType: CallerType, clientID: String?, hasGroupsOverage: Bool
        ) {
            self.objectID = objectID
            self.callerType = callerType
            self.clientID = clientID
            self.hasGroupsOverage = hasGroupsOverage
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
            upn: String?? = nil, roles: [String]? = nil, groups: [String]? = nil, clientID: String?? = nil,
            hasGroupsOverage: Bool? = nil
        ) -> Storage {
            Storage(
                objectID: objectID ?? self.objectID, email: email ?? self.email, tenantID: tenantID ?? self.tenantID,
                name: name ?? self.name, upn: upn ?? self.upn, roles: roles ?? self.roles, groups: groups ?? self.groups,
                callerType: callerType, clientID: clientID ?? self.clientID, hasGroupsOverage: hasGroupsOverage ?? self.hasGroupsOverage
            )
        }
    }

    private var storage: Storage

    /// The `oid` claim, trimmed: the user's immutable object id in the tenant.
    public var objectID: String {
        get { storage.objectID }
        set { storage = storage.with(objectID: newValue) }
    }
    /// A user's email: first non-blank of `email`, `preferred_username`, `upn` (not lower-cased).
    /// `nil` only for an application (`callerType == .app`): app-only tokens carry no email.
    public var email: String? { storage.email }
    /// A signed-in user, or an application with its own app-only token.
    public var callerType: CallerType { storage.callerType }
    /// The application the caller came through: for a user the app they signed in with (`azp`,
    /// v1 `appid`, an ID token's `aud`), for an application its own client id. `nil` when the
    /// credential does not say (a session cookie issued before the gateway recorded it).
    public var clientID: String? {
        get { storage.clientID }
        set { storage = storage.with(clientID: .some(newValue)) }
    }
    /// The credential said the caller has more groups than it could carry (Entra's groups overage:
    /// `_claim_names.groups`, `hasgroups: true`; a session cookie's `hasgroups`): `groups` is then
    /// not the whole list, and a `groups` rule cannot be decided from it.
    public var hasGroupsOverage: Bool {
        get { storage.hasGroupsOverage }
        set { storage = storage.with(hasGroupsOverage: newValue) }
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
        groups: [String] = [],
        clientID: String? = nil,
        hasGroupsOverage: Bool = false
    ) {
        storage = Storage(
            objectID: objectID, email: email, tenantID: tenantID, name: name, upn: upn, roles: roles, groups: groups,
            callerType: .user, clientID: clientID, hasGroupsOverage: hasGroupsOverage)
    }

    /// An application calling with its own app-only (client-credentials) token: `objectID` is its
    /// service principal's object id (`oid` = `sub`), `clientID` its application id (`azp`, v1
    /// `appid`), `roles` the app roles granted to it. It has no email, name or UPN.
    public static func application(
        servicePrincipalID: String, clientID: String, tenantID: String, roles: [String] = [], groups: [String] = [],
        hasGroupsOverage: Bool = false
    ) -> UserIdentity {
        UserIdentity(storage: Storage(
            objectID: servicePrincipalID, email: nil, tenantID: tenantID, name: nil, upn: nil, roles: roles, groups: groups,
            callerType: .app, clientID: clientID, hasGroupsOverage: hasGroupsOverage))
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// Every field equal; the same box (a copy of one cached identity, the usual case on the
    /// request path) is equal without comparing strings.
    public static func == (lhs: UserIdentity, rhs: UserIdentity) -> Bool {
        if lhs.storage === rhs.storage { return true }
        let a = lhs.storage
        let b = rhs.storage
        return a.objectID == b.objectID && a.tenantID == b.tenantID && a.email == b.email && a.name == b.name
            && a.upn == b.upn && a.roles == b.roles && a.groups == b.groups && a.callerType == b.callerType
            && a.clientID == b.clientID && a.hasGroupsOverage == b.hasGroupsOverage
    }

    /// Hashes the object id and tenant only (hashed once, when the identity was made): they
    /// identify the user, and the identity caches on the request path hash a user several times
    /// per request. Equality still compares every field, so a changed name or role list is a
    /// different cache entry.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.identityHash)
    }
}

/// Who is calling: a signed-in user, or an application with its own app-only token.
public enum CallerType: String, Sendable {
    /// A user: an ID token, a delegated access token (`scp`), or a session cookie.
    case user
    /// An application: an app-only (client-credentials) access token, `roles` and no `scp`.
    case app
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
