public import AppNativeJSON

/// The submit button of a native form (`contract/models.md` §3.1).
public struct NativeFormSubmit: Sendable, Hashable, ModelEncodable {
    /// Button weight.
    public enum Style: String, Sendable, Hashable, CaseIterable, WireEnum {
        case primary, destructive
    }

    public var label: String?
    /// Confirmation prompt text.
    public var confirm: String?
    /// UX only, never a security check.
    public var biometric: Bool?
    public var style: Style?
    /// Keep the form open until the page answers (at most 60 s).
    public var wait: Bool?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(label: String? = nil, confirm: String? = nil, biometric: Bool? = nil, style: Style? = nil, wait: Bool? = nil) {
        self.label = label
        self.confirm = confirm
        self.biometric = biometric
        self.style = style
        self.wait = wait
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("label", label)
        writer.set("confirm", confirm)
        writer.set("biometric", biometric)
        writer.set("style", style)
        writer.set("wait", wait)
        return writer.value
    }
}

extension NativeFormSubmit: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let label = reader.optional("label") { $0.string() }
        let confirm = reader.optional("confirm") { $0.string() }
        let biometric = reader.optional("biometric") { $0.bool() }
        let style = reader.optional("style") { $0.enumeration(Style.self) }
        let wait = reader.optional("wait") { $0.bool() }
        guard reader.isClean else { return nil }
        self.init(label: label, confirm: confirm, biometric: biometric, style: style, wait: wait)
    }
}
