public import AppNativeJSON

/// A button of native content: footer action, `buttons` block item or list-row action
/// (`contract/models.md` §3.3): an ``ActionButton``'s members (read through it: `action.label`)
/// plus what the action does.
@dynamicMemberLookup
public struct NativeAction: Sendable, Hashable, ModelEncodable {
    /// What the action shows and asks before it acts; `style` has no default here.
    public var button: ActionButton
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
        self.init(
            button: ActionButton(id: id, label: label, style: style, icon: icon, confirm: confirm, biometric: biometric),
            submit: submit, wait: wait, then: then)
    }

    /// An action that shows `button` and does what `submit`, `wait` and `then` say.
    public init(button: ActionButton, submit: Bool? = nil, wait: Bool? = nil, then: [NativeStep]? = nil) {
        self.button = button
        self.submit = submit
        self.wait = wait
        self.then = then
    }

    /// A member of ``button`` (`id`, `label`, `style`, `icon`, `confirm`, `biometric`).
    public subscript<Value>(dynamicMember member: WritableKeyPath<ActionButton, Value>) -> Value {
        get { button[keyPath: member] }
        set { button[keyPath: member] = newValue }
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        button.write(to: &writer) { writer, style in writer.set("style", style) }
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
        let button = ActionButton.read(reader) { $0.optional("style") { $0.enumeration(ActionButton.Style.self) } }
        let submit = reader.optional("submit") { $0.bool() }
        let wait = reader.optional("wait") { $0.bool() }
        let then = reader.optional("then") { $0.array(max: ModelLimits.maxThenSteps, maxIsLimit: true) { $0.nativeStep() }
        }
        guard reader.isClean, let button else { return nil }
        self.init(button: button, submit: submit, wait: wait, then: then)
    }
}
