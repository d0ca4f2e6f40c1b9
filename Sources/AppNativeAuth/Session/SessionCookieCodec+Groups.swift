import AppNativeJSON

/// The groups and client application a session cookie carries, kept small: a cookie holds the
/// user's group ids only while they fit `groupsBudget`; beyond that (or when the token itself
/// had Entra's groups overage) it carries `hasgroups: true` instead, Entra's own claim for
/// "the groups are elsewhere", so a `groups` rule decides the same for the cookie as for the
/// token it came from without a cookie of hundreds of ids (oversized cookies are dropped by
/// browsers and proxies). All three claims are optional and read leniently: a cookie without
/// them (or with a malformed one) reads as a user with no groups and no client id.
extension SessionCookieCodec {
    /// The most group ids a cookie carries (each about 37 bytes in the cookie).
    public static let groupsBudget = 10

    /// Adds `groups` (or `hasgroups`) and `azp` for `user`.
    static func addCallerClaims(of user: UserIdentity, to claims: inout JSONObject) {
        if user.hasGroupsOverage || user.groups.count > groupsBudget {
            claims["hasgroups"] = .bool(true)
        } else if !user.groups.isEmpty {
            claims["groups"] = .array(user.groups.map(JSONValue.string))
        }
        if let clientID = user.clientID, !clientID.isEmpty { claims["azp"] = .string(clientID) }
    }

    /// Reads what `addCallerClaims` wrote.
    static func readCallerClaims(_ claims: JWTClaims, into user: inout UserIdentity) {
        if case .bool(true)? = claims["hasgroups"] {
            user.hasGroupsOverage = true
        } else if let groups = claims.stringList("groups") {
            user.groups = groups
        }
        user.clientID = claims.nonBlankString("azp")
    }
}
