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
        write(to: &writer) { writer, style in writer.set("style", style, default: .primary) }
        return writer.value
    }

    /// Writes the members every button of the contract carries, in their order; `writeStyle` writes
    /// `style` as the caller's model does (a widget's button writes its default, a native action's
    /// does not).
    func write(to writer: inout ObjectWriter, style writeStyle: (inout ObjectWriter, Style?) -> Void) {
        writer.set("id", id)
        writer.set("label", label)
        writeStyle(&writer, style)
        writer.set("icon", icon)
        writer.set("confirm", confirm)
        writer.set("biometric", biometric)
    }

    /// Reads the members every button of the contract carries, in their order, reporting each
    /// error to `reader`; `readStyle` reads `style` as the caller's model does. `nil` when `id` or
    /// `label` is missing; the caller checks `reader.isClean` once it has read its own members.
    static func read(_ reader: ObjectReader, style readStyle: (ObjectReader) -> Style?) -> ActionButton? {
        let id = reader.required("id") { $0.nonEmptyString() }
        let label = reader.required("label") { $0.nonEmptyString() }
        let style = readStyle(reader)
        let icon = reader.optional("icon") { $0.string() }
        let confirm = reader.optional("confirm") { $0.string() }
        let biometric = reader.optional("biometric") { $0.bool() }
        guard let id, let label else { return nil }
        return ActionButton(id: id, label: label, style: style, icon: icon, confirm: confirm, biometric: biometric)
    }
}

extension ActionButton: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        // `style` has a default, so `null` is refused.
        let button = Self.read(reader) { $0.nonNull("style") { $0.enumeration(Style.self) } }
        guard reader.isClean, let button else { return nil }
        self = button
    }
}
