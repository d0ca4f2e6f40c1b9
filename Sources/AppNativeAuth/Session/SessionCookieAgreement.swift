/// The rule for a request that carries the session cookie's name more than once (several pairs
/// in one `Cookie` field, or several fields): every value that verifies must name the same user
/// (object id and tenant), and then the first of them is the session. A value that does not
/// verify is ignored (a stale or broken copy beside a good one). Two valid cookies of different
/// users give no session at all: a cookie planted beside the user's own (from a sibling
/// subdomain, when the name has no `__Host-` prefix) can never choose who the request is; the
/// request is answered as one without a cookie (401, or the sign-in for a navigation).
public struct SessionCookieAgreement: Sendable {
    private enum State: Sendable {
        case empty
        case agreed(VerifiedIdentity)
        case conflicting
    }

    private var state = State.empty
    /// The last refusal of a value that did not verify: its reason code is what the log names
    /// when no value verified.
    private var lastRefusal: AuthError?

    /// No cookie read yet.
    public init() {}

    /// Adds a cookie value that verified.
    public mutating func add(_ identity: VerifiedIdentity) {
        switch state {
        case .empty:
            state = .agreed(identity)
        case .agreed(let first):
            if first.user.objectID != identity.user.objectID || first.user.tenantID != identity.user.tenantID { state = .conflicting }
        case .conflicting:
            break
        }
    }

    /// Notes a cookie value that did not verify (ignored, but its reason is kept for the log).
    public mutating func refuse(_ error: AuthError) {
        lastRefusal = error
    }

    /// The outcome: the session; or why there is none (two users, or the last refusal); `nil`
    /// when no value of the name was read.
    public var verdict: Result<VerifiedIdentity, AuthError>? {
        switch state {
        case .agreed(let identity): .success(identity)
        case .conflicting: .failure(AuthError(.conflictingCookies, "two session cookies name different users"))
        case .empty: lastRefusal.map { .failure($0) }
        }
    }

    /// The session: the first valid cookie when every valid one agrees, else `nil`.
    public var identity: VerifiedIdentity? {
        if case .agreed(let identity) = state { return identity }
        return nil
    }

    /// Whether two valid cookies named different users (nothing read after that can help).
    public var isConflicting: Bool {
        if case .conflicting = state { return true }
        return false
    }
}
