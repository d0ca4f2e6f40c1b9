/// A string enumeration on the wire: unknown values are validation errors.
protocol WireEnum: RawRepresentable<String>, CaseIterable {}
