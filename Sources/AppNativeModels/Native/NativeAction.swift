public import AppNativeJSON

/// A button of native content: footer action, `buttons` block item or list-row action
/// (`contract/models.md` §3.3).
public struct NativeAction: Sendable, Hashable, ModelEncodable {
    public var id: String
    public var label: String
    public var style: ActionButton.Style?
    public var icon: String?
    public var confirm: String?
    /// UX only, never a security check.
    public var biometric: Bool?
    /// Validate and return the `fields` blocks' values.
    public var submit: Bool?
    /// Keep the surface open until the page answers.
    public var wait: Bool?
    /// At most `MAX_THEN_STEPS`.
    public var then: [NativeStep]?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        id: String, label: String, style: ActionButton.Style? = nil, icon: String? = nil, confirm: String? = nil,
        biometric: Bool? = nil, submit: Bool? = nil, wait: Bool? = nil, then: [NativeStep]? = nil
    ) {
        self.id = id
        self.label = label
        self.style = style
        self.icon = icon
        self.confirm = confirm
        self.biometric = biometric
        self.submit = submit
        self.wait = wait
        self.then = then
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("id", id)
        writer.set("label", label)
        writer.set("style", style)
        writer.set("icon", icon)
        writer.set("confirm", confirm)
        writer.set("biometric", biometric)
        writer.set("submit", submit)
        writer.set("wait", wait)
        writer.set("then", then)
        return writer.value
    }

    /// How many surfaces this action chains at most (`contract/models.md` §3.2): `showForm` counts 1,
    /// `showContent` 1 plus that content's own depth.
    var chainDepth: Int {
        (then ?? []).reduce(0) { deepest, step in
            switch step {
            case .showForm: Swift.max(deepest, 1)
            case .showContent(let content): Swift.max(deepest, 1 + content.chainDepth)
            default: deepest
            }
        }
    }
}

extension NativeAction: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let id = reader.required("id") { $0.nonEmptyString() }
        let label = reader.required("label") { $0.nonEmptyString() }
        let style = reader.optional("style") { $0.enumeration(ActionButton.Style.self) }
        let icon = reader.optional("icon") { $0.string() }
        let confirm = reader.optional("confirm") { $0.string() }
        let biometric = reader.optional("biometric") { $0.bool() }
        let submit = reader.optional("submit") { $0.bool() }
        let wait = reader.optional("wait") { $0.bool() }
        let then = reader.optional("then") { $0.array(max: ModelLimits.maxThenSteps, maxIsLimit: true) { $0.nativeStep() }
        }
        guard reader.isClean, let id, let label else { return nil }
        self.init(
            id: id, label: label, style: style, icon: icon, confirm: confirm, biometric: biometric, submit: submit,
            wait: wait, then: then)
    }
}
