public import AppNativeAuth

/// Where a caller's groups come from when an access-policy `groups` rule must decide and the
/// credential did not carry them all (Entra's groups overage: the token names a source instead
/// of more than about 200 ids; a session cookie carries at most `SessionCookieCodec.groupsBudget`).
///
/// The gateway asks a source only for such a caller; a caller whose credential carried its
/// groups is decided from them. `GraphGroupsSource` (`GROUPS_FROM_GRAPH`), which asks Microsoft
/// Graph's `getMemberGroups`, replaces `CredentialGroupsSource`.
public protocol GroupsSource: Sendable {
    /// The caller's groups, as far as this source can tell without waiting (`mustFetch` when it
    /// has to ask its directory: the handler then calls `fetchGroups(of:)` off the loop).
    func groups(of user: UserIdentity) -> GroupsLookup

    /// The caller's groups, asking the directory when needed; never `mustFetch`.
    func fetchGroups(of user: UserIdentity) async -> GroupsLookup
}

extension GroupsSource {
    public func fetchGroups(of user: UserIdentity) async -> GroupsLookup {
        groups(of: user)
    }
}

/// The answer of a `GroupsSource`.
public enum GroupsLookup: Sendable, Equatable {
    /// The caller's whole group list.
    case known([String])
    /// The source cannot tell; `reason` is the code logged (`groups_overage`). A `groups` rule
    /// then refuses (403): a rule that grants by group never grants on a guess.
    case unknown(reason: String)
    /// The directory cannot answer now (`reason`: `graph_unavailable`, `graph_throttled`, …): a
    /// `groups` rule answers 503 with `Retry-After: retryAfterSeconds`, never 200 nor 403.
    case unavailable(reason: String, retryAfterSeconds: Int)
    /// Only the directory can tell: ask `fetchGroups(of:)` (off the loop).
    case mustFetch
}

/// The groups the credential carried, and nothing else: a caller with a groups overage is
/// `unknown` (`groups_overage`).
public struct CredentialGroupsSource: GroupsSource {
    public init() {}

    public func groups(of user: UserIdentity) -> GroupsLookup {
        user.hasGroupsOverage ? .unknown(reason: "groups_overage") : .known(user.groups)
    }
}
