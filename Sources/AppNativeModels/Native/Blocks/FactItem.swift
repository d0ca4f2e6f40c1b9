public import AppNativeJSON

/// One label/value line of a `facts` block (`contract/models.md` §3.4).
public struct FactItem: Sendable, Hashable, ModelEncodable {
    /// What the value is, so the app can call, mail or map it.
    public enum Kind: String, Sendable, Hashable, CaseIterable, WireEnum {
        case text, phone, email, address, url
    }

    public var label: String
    public var value: String
    /// How the app links the value.
    public var kind: Kind?
    public var icon: String?
    public var copyable: Bool?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(label: String, value: String, kind: Kind? = nil, icon: String? = nil, copyable: Bool? = nil) {
        self.label = label
        self.value = value
        self.kind = kind
        self.icon = icon
        self.copyable = copyable
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("label", label)
        writer.set("value", value)
        writer.set("kind", kind)
        writer.set("icon", icon)
        writer.set("copyable", copyable)
        return writer.value
    }
}

extension FactItem: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let label = reader.required("label") { $0.string() }
        let value = reader.required("value") { $0.string() }
        let kind = reader.optional("kind") { $0.enumeration(Kind.self) }
        let icon = reader.optional("icon") { $0.string() }
        let copyable = reader.optional("copyable") { $0.bool() }
        guard reader.isClean, let label, let value else { return nil }
        self.init(label: label, value: value, kind: kind, icon: icon, copyable: copyable)
    }
}
