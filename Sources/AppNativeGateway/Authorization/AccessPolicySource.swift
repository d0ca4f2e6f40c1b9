import AppNativeCore

/// The access policy in force, re-read from `ACCESS_POLICY_FILE` on `SIGHUP` (`reload()`).
///
/// A request reads the policy once, when its authorization starts, and keeps that value to the
/// end, so a request in flight finishes on the policy it started with while new requests use the
/// new one at once. A file that cannot be read or checked leaves the policy in force unchanged.
///
/// Every request with a policy reads it, from every loop, and reloads are rare: each loop keeps
/// its own copy (`Snapshot`, over `Reloadable`) and takes the lock only after a reload.
public final class AccessPolicySource: Sendable {
    /// The file the policy is read from.
    public let path: String
    private let current: Reloadable<AccessPolicy>

    public init(path: String, policy: AccessPolicy) {
        self.path = path
        current = Reloadable(policy)
    }

    /// The policy in force.
    public var policy: AccessPolicy { current.value }

    /// Reads and checks the file again and swaps the new policy in whole.
    ///
    /// - Throws: the problem with the file; the policy in force is kept.
    public func reload() throws(AccessPolicy.Invalid) {
        current.replace(with: try AccessPolicy.load(path: path))
    }

    /// One loop's copy of the policy in force (loop-owned).
    struct Snapshot {
        private var copy: Reloadable<AccessPolicy>.Snapshot

        init(_ source: AccessPolicySource) { copy = Reloadable.Snapshot(source.current) }

        /// The policy in force: the loop's copy, read again only after a reload.
        mutating func policy() -> AccessPolicy {
            copy.refresh()
            return copy.value
        }
    }
}
