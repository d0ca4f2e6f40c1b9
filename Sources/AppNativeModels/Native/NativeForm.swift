public import AppNativeJSON

/// A native form the page opens with `showForm` (`contract/models.md` §3.1).
public struct NativeForm: Sendable, Hashable, ModelDecodable, ModelEncodable {
    public var common: SurfaceCommon
    public var text: String?
    /// Prefill by field id.
    public var values: JSONObject?
    /// Single-page form.
    public var fields: [ActionField]?
    /// 1…`MAX_FORM_PAGES` pages.
    public var pages: [ActionPage]?
    public var submit: NativeFormSubmit?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        common: SurfaceCommon = SurfaceCommon(), text: String? = nil, values: JSONObject? = nil,
        fields: [ActionField]? = nil, pages: [ActionPage]? = nil, submit: NativeFormSubmit? = nil
    ) {
        self.common = common
        self.text = text
        self.values = values
        self.fields = fields
        self.pages = pages
        self.submit = submit
    }

    /// Decodes and validates a form definition with every rule and limit of §2 and §3.1.
    ///
    /// - Throws: ``ModelError`` listing every issue; ``ModelError/isTooLarge`` tells a broken
    ///   limit (the app's "tooLarge") from an invalid definition.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        common.write(to: &writer)
        writer.set("text", text)
        writer.set("values", values)
        writer.set("fields", fields)
        writer.set("pages", pages)
        writer.set("submit", submit)
        return writer.value
    }
}

extension NativeForm: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let decoded: NativeForm? = reader.context.decodingSurface { isRoot in
            let common = SurfaceCommon(reader)
            let text = reader.optional("text") { $0.string() }
            let values = reader.optional("values") { $0.object() }
            let fields = reader.optional("fields") { $0.array { $0.model(ActionField.self) } }
            let pages = reader.optional("pages") {
                $0.array(min: 1, max: ModelLimits.maxFormPages, maxIsLimit: true) { $0.model(ActionPage.self) }
            }
            let submit = reader.optional("submit") { $0.model(NativeFormSubmit.self) }
            FormRules.check(reader, fields: fields, pages: pages)
            let fieldCount = Self.rawFieldCount(reader)
            if fieldCount > ModelLimits.maxFormFields {
                reader.tooLarge(nil, "\(fieldCount) fields; at most \(ModelLimits.maxFormFields) allowed")
            }
            if let values {
                let allFields = (fields ?? []) + (pages ?? []).flatMap(\.fields)
                let valuesKey = reader.lookup("values")?.key ?? "values"
                for field in allFields where field.effectiveType == .repeat {
                    if let rows = values[field.id]?.arrayValue, rows.count > ModelLimits.maxRepeatRows {
                        reader.context.tooLarge(
                            reader.path + [.key(valuesKey), .key(field.id)],
                            "\(rows.count) repeat rows; at most \(ModelLimits.maxRepeatRows) allowed")
                    }
                }
            }
            guard reader.isClean else { return nil }
            let form = NativeForm(common: common, text: text, values: values, fields: fields, pages: pages, submit: submit)
            if isRoot { reader.checkDefinition(form, chainDepth: 0) }
            return reader.isClean ? form : nil
        }
        guard let decoded else { return nil }
        self = decoded
    }

    /// Fields across `fields` and every page, counted on the raw JSON (a repeat counts once).
    private static func rawFieldCount(_ reader: ObjectReader) -> Int {
        let direct = reader.lookup("fields")?.value.arrayValue?.count ?? 0
        let paged = (reader.lookup("pages")?.value.arrayValue ?? []).reduce(0) {
            $0 + ($1["fields"]?.arrayValue?.count ?? 0)
        }
        return direct + paged
    }
}
