public import AppNativeJSON

/// A button on a widget, a list row or an action form (`contract/models.md` §1.2).
public struct ActionButton: Sendable, Hashable, ModelEncodable {
    /// Visual weight.
    public enum Style: String, Sendable, Hashable, CaseIterable, WireEnum {
        case primary, secondary, destructive
    }

    /// Comes back as `action_id`.
    public var id: String
    public var label: String
    /// `nil` = unset, written as `primary` in response encoding.
    public var style: Style?
    public var icon: String?
    /// Confirmation prompt text.
    public var confirm: String?
    /// UX only, never a security check. Keep `nil` rather than `false` to save push bytes.
    public var biometric: Bool?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        id: String, label: String, style: Style? = nil, icon: String? = nil, confirm: String? = nil,
        biometric: Bool? = nil
    ) {
        self.id = id
        self.label = label
        self.style = style
        self.icon = icon
        self.confirm = confirm
        self.biometric = biometric
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("id", id)
        writer.set("label", label)
        writer.set("style", style, default: .primary)
        writer.set("icon", icon)
        writer.set("confirm", confirm)
        writer.set("biometric", biometric)
        return writer.value
    }
}

extension ActionButton: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let id = reader.required("id") { $0.nonEmptyString() }
        let label = reader.required("label") { $0.nonEmptyString() }
        let style = reader.nonNull("style") { $0.enumeration(Style.self) }
        let icon = reader.optional("icon") { $0.string() }
        let confirm = reader.optional("confirm") { $0.string() }
        let biometric = reader.optional("biometric") { $0.bool() }
        guard reader.isClean, let id, let label else { return nil }
        self.init(id: id, label: label, style: style, icon: icon, confirm: confirm, biometric: biometric)
    }
}
