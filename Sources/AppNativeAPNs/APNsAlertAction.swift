import AppNativeJSON

/// A button shown in the app's notifications tab (not on the lock screen): `{"id","title"}` in
/// the `actions` data key (contract/apns.md §1.1).
public struct APNsAlertAction: Sendable, Hashable {
    /// Sent back by the app when tapped.
    public var id: String
    /// The button label.
    public var title: String

    /// Creates an action.
    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }

    var json: JSONValue { .object(["id": .string(id), "title": .string(title)]) }
}
