public import AppNativeJSON

/// One input of an action form or native form (`contract/models.md` §2.2), with the per-field rules of
/// its validation table.
public struct ActionField: Sendable, Hashable, ModelDecodable, ModelEncodable {
    public var id: String
    /// `nil` = unset, written as `text` in response encoding.
    public var type: FieldType?
    public var label: String?
    public var placeholder: String?
    /// Footnote `[0.6]`.
    public var help: String?
    public var options: [ActionOption]?
    /// `select`: load options through widget-options.
    public var remote: Bool?
    public var minQueryLength: Int?
    public var required: Bool?
    public var visibleIf: ActionCondition?
    public var value: FieldValue?
    /// Display text for a remote prefill.
    public var valueLabel: String?
    public var minLength: Int?
    public var maxLength: Int?
    /// Number/stepper bounds; photo count; scan pages; repeat rows.
    public var min: JSONNumber?
    public var max: JSONNumber?
    public var step: Int?
    /// ICU regex, not checked server-side.
    public var pattern: String?
    public var patternMessage: String?
    public var source: PhotoSource?
    public var maxDimension: Int?
    public var format: ScanFormat?
    public var symbologies: [BarcodeSymbology]?
    /// Row fields of a `repeat`.
    public var fields: [ActionField]?
    public var addLabel: String?

    /// The type the app uses: `text` when unset.
    public var effectiveType: FieldType { type ?? .text }

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        id: String, type: FieldType? = nil, label: String? = nil, placeholder: String? = nil, help: String? = nil,
        options: [ActionOption]? = nil, remote: Bool? = nil, minQueryLength: Int? = nil, required: Bool? = nil,
        visibleIf: ActionCondition? = nil, value: FieldValue? = nil, valueLabel: String? = nil,
        minLength: Int? = nil, maxLength: Int? = nil, min: JSONNumber? = nil, max: JSONNumber? = nil,
        step: Int? = nil, pattern: String? = nil, patternMessage: String? = nil, source: PhotoSource? = nil,
        maxDimension: Int? = nil, format: ScanFormat? = nil, symbologies: [BarcodeSymbology]? = nil,
        fields: [ActionField]? = nil, addLabel: String? = nil
    ) {
        self.id = id
        self.type = type
        self.label = label
        self.placeholder = placeholder
        self.help = help
        self.options = options
        self.remote = remote
        self.minQueryLength = minQueryLength
        self.required = required
        self.visibleIf = visibleIf
        self.value = value
        self.valueLabel = valueLabel
        self.minLength = minLength
        self.maxLength = maxLength
        self.min = min
        self.max = max
        self.step = step
        self.pattern = pattern
        self.patternMessage = patternMessage
        self.source = source
        self.maxDimension = maxDimension
        self.format = format
        self.symbologies = symbologies
        self.fields = fields
        self.addLabel = addLabel
    }

    /// Decodes one ActionField with the widget rules (native-form rules apply inside ``NativeForm``).
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("id", id)
        writer.set("type", type, default: .text)
        writer.set("label", label)
        writer.set("placeholder", placeholder)
        writer.set("help", help)
        writer.set("options", options)
        writer.set("remote", remote)
        writer.set("minQueryLength", minQueryLength)
        writer.set("required", required)
        writer.set("visibleIf", visibleIf)
        writer.set("value", value)
        writer.set("valueLabel", valueLabel)
        writer.set("minLength", minLength)
        writer.set("maxLength", maxLength)
        writer.set("min", min)
        writer.set("max", max)
        writer.set("step", step)
        writer.set("pattern", pattern)
        writer.set("patternMessage", patternMessage)
        writer.set("source", source)
        writer.set("maxDimension", maxDimension)
        writer.set("format", format)
        writer.set("symbologies", symbologies.map { .array($0.map { JSONValue.string($0.rawValue) }) })
        writer.set("fields", fields)
        writer.set("addLabel", addLabel)
        return writer.value
    }
}

extension ActionField: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let id = reader.required("id") { $0.nonEmptyString() }
        let type = reader.nonNull("type") { $0.enumeration(FieldType.self) }
        let label = reader.optional("label") { $0.string() }
        let placeholder = reader.optional("placeholder") { $0.string() }
        let help = reader.optional("help") { $0.string() }
        let options = reader.optional("options") { $0.array { $0.model(ActionOption.self) } }
        let remote = reader.optional("remote") { $0.bool() }
        let minQueryLength = reader.optional("minQueryLength") { $0.int(atLeast: 0) }
        let required = reader.optional("required") { $0.bool() }
        let visibleIf = reader.optional("visibleIf") { $0.model(ActionCondition.self) }
        let value = reader.optional("value") { $0.fieldValue() }
        let valueLabel = reader.optional("valueLabel") { $0.string() }
        let minLength = reader.optional("minLength") { $0.int(atLeast: 0) }
        let maxLength = reader.optional("maxLength") { $0.int(atLeast: 1) }
        let min = reader.optional("min") { $0.intOrFloat() }
        let max = reader.optional("max") { $0.intOrFloat() }
        let step = reader.optional("step") { $0.int(atLeast: 1) }
        let pattern = reader.optional("pattern") { $0.string() }
        let patternMessage = reader.optional("patternMessage") { $0.string() }
        let source = reader.optional("source") { $0.enumeration(PhotoSource.self) }
        let maxDimension = reader.optional("maxDimension") {
            $0.int(atLeast: ModelLimits.minPhotoDimension, atMost: ModelLimits.maxPhotoDimension)
        }
        let format = reader.optional("format") { $0.enumeration(ScanFormat.self) }
        let symbologies = reader.optional("symbologies") { $0.array { $0.enumeration(BarcodeSymbology.self) } }
        let fields = reader.optional("fields") { $0.array { $0.model(ActionField.self) } }
        let addLabel = reader.optional("addLabel") { $0.string() }

        let effectiveType = type ?? .text
        Self.checkRules(
            reader, type: effectiveType, options: options, remote: remote, min: min, max: max, minLength: minLength,
            maxLength: maxLength, fields: fields)

        guard reader.isClean, let id else { return nil }
        self.init(
            id: id, type: type, label: label, placeholder: placeholder, help: help, options: options, remote: remote,
            minQueryLength: minQueryLength, required: required, visibleIf: visibleIf, value: value,
            valueLabel: valueLabel, minLength: minLength, maxLength: maxLength, min: min, max: max, step: step,
            pattern: pattern, patternMessage: patternMessage, source: source, maxDimension: maxDimension,
            format: format, symbologies: symbologies, fields: fields, addLabel: addLabel)
    }

    /// The cross-member rules of the §2.2 table (and §3.1/§3.2 for native surfaces).
    private static func checkRules(
        _ reader: ObjectReader, type: FieldType, options: [ActionOption]?, remote: Bool?, min: JSONNumber?,
        max: JSONNumber?, minLength: Int?, maxLength: Int?, fields: [ActionField]?
    ) {
        let maxValue = max?.double
        if type == .repeat {
            checkRepeatFields(reader, fields: fields)
            if let maxValue, maxValue > Double(ModelLimits.maxRepeatRows) {
                reader.tooLarge("max", "a repeat allows at most \(ModelLimits.maxRepeatRows) rows", input: max.map(JSONValue.number))
            }
        } else if !reader.isAbsentOrNull("fields") {
            reader.invalid("fields", "only a repeat field may have fields")
        }
        if type == .multiselect || type == .segmented, options?.isEmpty ?? reader.isAbsentOrNull("options") {
            reader.invalid("options", "a \(type.rawValue) field needs at least one option")
        }
        if let maxValue {
            if type == .photo, !(1...Double(ModelLimits.maxPhotosPerField)).contains(maxValue) {
                reader.invalid("max", "photo max must be between 1 and \(ModelLimits.maxPhotosPerField)", input: max.map(JSONValue.number))
            }
            if type == .scan, !(1...Double(ModelLimits.maxScanPages)).contains(maxValue) {
                reader.invalid("max", "scan max must be between 1 and \(ModelLimits.maxScanPages)", input: max.map(JSONValue.number))
            }
        }
        if let low = min?.double, let maxValue, low > maxValue {
            reader.invalid(nil, "min must not be greater than max")
        }
        if let minLength, let maxLength, minLength > maxLength {
            reader.invalid(nil, "minLength must not be greater than maxLength")
        }
        if reader.context.surfaceDepth > 0 {
            if let options, options.count > ModelLimits.maxFieldOptions {
                reader.tooLarge("options", "a field allows at most \(ModelLimits.maxFieldOptions) options")
            }
            if type == .select, remote != true, options?.isEmpty ?? reader.isAbsentOrNull("options") {
                reader.invalid("options", "a select field needs options or remote: true")
            }
        }
    }

    private static func checkRepeatFields(_ reader: ObjectReader, fields: [ActionField]?) {
        guard let fields else {
            // Absent or null: missing. Present but undecodable: its own issues are already reported.
            if reader.isAbsentOrNull("fields") {
                reader.invalid("fields", "a repeat field needs fields")
            }
            return
        }
        if fields.isEmpty || fields.count > ModelLimits.maxRepeatFields {
            reader.invalid("fields", "a repeat field needs 1 to \(ModelLimits.maxRepeatFields) fields")
        }
        let fieldsKey = reader.lookup("fields")?.key ?? "fields"
        var seen = Set<String>()
        for (index, inner) in fields.enumerated() {
            let path = reader.path + [.key(fieldsKey), .index(index)]
            if !FieldType.repeatInnerTypes.contains(inner.effectiveType) {
                reader.context.invalid(
                    path + ["type"], "a repeat row may not contain a \(inner.effectiveType.rawValue) field",
                    input: .string(inner.effectiveType.rawValue))
            }
            if inner.visibleIf != nil {
                reader.context.invalid(path + ["visibleIf"], "a repeat row field may not have visibleIf")
            }
            if !seen.insert(inner.id).inserted {
                reader.context.invalid(path + ["id"], "duplicate field id in repeat", input: .string(inner.id))
            }
        }
    }
}
