/// Output format of a `scan` field.
public enum ScanFormat: String, Sendable, Hashable, CaseIterable, WireEnum {
    case jpeg, pdf
}
