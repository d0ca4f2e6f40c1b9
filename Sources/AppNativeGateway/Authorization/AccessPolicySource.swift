import AppNativeCore
import Synchronization

/// The access policy in force, re-read from `ACCESS_POLICY_FILE` on `SIGHUP` (`reload()`).
///
/// A request reads the policy once, when its authorization starts, and keeps that value to the
/// end, so a request in flight finishes on the policy it started with while new requests use the
/// new one at once. A file that cannot be read or checked leaves the policy in force unchanged.
///
/// Every request with a policy reads it, from every loop, and reloads are rare: each loop keeps
/// its own copy (`Snapshot`) and takes the lock only when `generation` says a reload happened.
public final class AccessPolicySource: Sendable {
    /// The file the policy is read from.
    public let path: String
    private let current: Locked<(generation: Int, policy: AccessPolicy)>
    /// Bumped after each swap; a loop whose copy is older reads `current` again.
    private let generation = Atomic<Int>(0)

    public init(path: String, policy: AccessPolicy) {
        self.path = path
        current = Locked((0, policy))
    }

    /// The policy in force.
    public var policy: AccessPolicy { current.withLock { $0.policy } }

    /// Reads and checks the file again and swaps the new policy in whole.
    ///
    /// - Throws: the problem with the file; the policy in force is kept.
    public func reload() throws(AccessPolicy.Invalid) {
        let policy = try AccessPolicy.load(path: path)
        let next = current.withLock { state in
            state = (state.generation + 1, policy)
            return state.generation
        }
        generation.store(next, ordering: .releasing)
    }

    /// One loop's copy of the policy in force (loop-owned).
    struct Snapshot {
        let source: AccessPolicySource
        private var generation = -1
        private var cached: AccessPolicy?

        init(_ source: AccessPolicySource) { self.source = source }

        /// The policy in force: the loop's copy, read again only after a reload.
        mutating func policy() -> AccessPolicy {
            if let cached, source.generation.load(ordering: .acquiring) == generation { return cached }
            let (generation, policy) = source.current.withLock { $0 }
            self.generation = generation
            cached = policy
            return policy
        }
    }
}
