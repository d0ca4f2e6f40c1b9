/// The input control of an ``ActionField`` (`contract/models.md` §2.2).
///
/// Older apps render types they do not know as `text`; this library still refuses values the
/// contract does not list, so a typo fails where it is written.
public enum FieldType: String, Sendable, Hashable, CaseIterable, WireEnum {
    case text, number, select, toggle, date, search
    case textarea, email, phone, url, multiselect, segmented, stepper, time, datetime, info
    case photo, scan, signature, barcode, `repeat`

    /// `REPEAT_INNER_FIELD_TYPES`: what a `repeat` row may contain.
    public static let repeatInnerTypes: Set<FieldType> = [.text, .number, .select, .toggle, .date, .textarea, .stepper]
}
