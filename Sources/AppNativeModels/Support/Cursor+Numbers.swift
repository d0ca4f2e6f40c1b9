internal import AppNativeJSON

extension Cursor {
    /// An integer within the given inclusive bounds.
    func int(atLeast minimum: Int? = nil, atMost maximum: Int? = nil) -> Int? {
        guard let int = int() else { return nil }
        guard check(Double(int), atLeast: minimum.map(Double.init), atMost: maximum.map(Double.init)) else {
            return nil
        }
        return int
    }

    /// A number within the given bounds (`greaterThan` exclusive).
    func number(atLeast minimum: Double? = nil, atMost maximum: Double? = nil, greaterThan: Double? = nil)
        -> JSONNumber?
    {
        guard let number = number(), let double = number.double,
            check(double, atLeast: minimum, atMost: maximum, greaterThan: greaterThan)
        else { return nil }
        return number
    }
}
