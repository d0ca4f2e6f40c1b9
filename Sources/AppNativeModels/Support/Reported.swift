/// A request member whose absence and explicit `null` mean different things (`contract/routes.md` §2.1).
///
/// Device registration keeps the three states apart so the host can tell "not reported in this
/// call, keep what you stored" from "deliberately cleared" (for example `user_email: null` on
/// sign-out).
public enum Reported<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The key was absent: keep the stored value.
    case absent
    /// The key was present with `null`: clear the stored value.
    case cleared
    /// The key was present with a value: store it.
    case set(Value)

    /// The value when set, `nil` when absent or cleared.
    public var value: Value? {
        if case .set(let value) = self { return value }
        return nil
    }
}
