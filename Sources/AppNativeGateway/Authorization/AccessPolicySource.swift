import AppNativeCore

/// The access policy in force, re-read from `ACCESS_POLICY_FILE` on `SIGHUP` (`reload()`).
///
/// A request reads the policy once, when its authorization starts, and keeps that value to the
/// end, so a request in flight finishes on the policy it started with while new requests use the
/// new one at once. A file that cannot be read or checked leaves the policy in force unchanged.
public final class AccessPolicySource: Sendable {
    /// The file the policy is read from.
    public let path: String
    private let current: Locked<AccessPolicy>

    public init(path: String, policy: AccessPolicy) {
        self.path = path
        current = Locked(policy)
    }

    /// The policy in force.
    public var policy: AccessPolicy { current.withLock { $0 } }

    /// Reads and checks the file again and swaps the new policy in whole.
    ///
    /// - Throws: the problem with the file; the policy in force is kept.
    public func reload() throws(AccessPolicy.Invalid) {
        let policy = try AccessPolicy.load(path: path)
        current.withLock { $0 = policy }
    }
}
