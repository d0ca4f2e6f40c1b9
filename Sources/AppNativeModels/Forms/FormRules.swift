internal import AppNativeJSON

/// The form-wide rules shared by widget action forms and native forms (`contract/models.md` §2.1, §3.1):
/// single page or pages, unique ids, `visibleIf` naming another field of the form.
enum FormRules {
    /// Checks `fields`/`pages` of the object `reader` reads; both already decoded (`nil` when
    /// absent or broken).
    static func check(_ reader: ObjectReader, fields: [ActionField]?, pages: [ActionPage]?) {
        if let fields, let pages, !fields.isEmpty, !pages.isEmpty {
            reader.invalid(nil, "a form has either fields or pages, not both")
        }
        // Every field with its path, in document order.
        var located: [(field: ActionField, path: [PathComponent])] = []
        let fieldsKey = reader.lookup("fields")?.key ?? "fields"
        for (index, field) in (fields ?? []).enumerated() {
            located.append((field, reader.path + [.key(fieldsKey), .index(index)]))
        }
        let pagesKey = reader.lookup("pages")?.key ?? "pages"
        for (pageIndex, page) in (pages ?? []).enumerated() {
            for (index, field) in page.fields.enumerated() {
                located.append((field, reader.path + [.key(pagesKey), .index(pageIndex), "fields", .index(index)]))
            }
        }
        var seen = Set<String>()
        for (field, path) in located where !seen.insert(field.id).inserted {
            reader.context.invalid(path + ["id"], "duplicate field id", input: .string(field.id))
        }
        for (field, path) in located {
            guard let condition = field.visibleIf else { continue }
            if condition.field == field.id || !seen.contains(condition.field) {
                reader.context.invalid(
                    path + ["visibleIf", "field"], "visibleIf must name another field of this form",
                    input: .string(condition.field))
            }
        }
    }

    /// Fields of a form counted as `MAX_FORM_FIELDS` counts them: all pages, a repeat once.
    static func fieldCount(fields: [ActionField]?, pages: [ActionPage]?) -> Int {
        (fields?.count ?? 0) + (pages ?? []).reduce(0) { $0 + $1.fields.count }
    }
}
