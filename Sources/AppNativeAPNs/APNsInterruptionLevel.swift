/// `aps.interruption-level` (iOS 15+).
public enum APNsInterruptionLevel: String, Sendable, Hashable, CaseIterable {
    case passive
    case active
    case timeSensitive = "time-sensitive"
    /// Needs Apple's critical-alert entitlement; also switches `sound` to the critical dictionary.
    case critical
}
