internal import AppNativeJSON

extension Timestamp {
    /// A `datetime` field as pydantic v2 reads it in lax mode (speedate under pydantic-core).
    ///
    /// - An ISO 8601 string (``init(iso8601:)``; a date alone is midnight).
    /// - A string of an optionally signed decimal number (`"1700000000"`, `"1700000000.5"`,
    ///   `"1."`), or a JSON number: Unix seconds, or milliseconds when the magnitude is above 2·10¹⁰.
    /// - Anything else is `datetime_type`.
    ///
    /// A string that is neither is then read as a date, and that reading's error is the one
    /// reported (`datetime_from_date_parsing`, speedate's wording): so every string whose first ten
    /// characters are a valid date gets "unexpected extra characters at the end of the input",
    /// however its time part is broken.
    static func lax(_ value: JSONValue) -> Result<Timestamp, LaxReading.Failure> {
        switch value {
        case .string(let text):
            if let timestamp = Timestamp(iso8601: text) { return .success(timestamp) }
            let bytes = Array(text.utf8)
            // speedate reads year 0; Python's datetime then refuses it.
            if text.hasPrefix("0000"), Timestamp(iso8601: "0001" + text.dropFirst(4)) != nil {
                return .failure(parsing("year 0 is out of range"))
            }
            if let seconds = unixNumber(bytes) { return fromUnix(seconds) }
            let error = dateError(bytes) ?? "input is too short"
            return .failure(
                Failure(
                    type: "datetime_from_date_parsing", message: "Input should be a valid datetime or date, \(error)",
                    context: ["error": .string(error)]))
        case .number(let number):
            guard let seconds = number.double else {
                return .failure(
                    parsing("dates \(number.text.hasPrefix("-") ? "before 0000" : "after 9999") are not supported as unix timestamps"))
            }
            return fromUnix(seconds)
        default:
            return .failure(Failure(type: "datetime_type", message: "Input should be a valid datetime"))
        }
    }

    private typealias Failure = LaxReading.Failure

    private static func parsing(_ error: String) -> Failure {
        Failure(
            type: "datetime_parsing", message: "Input should be a valid datetime, \(error)", context: ["error": .string(error)])
    }

    /// Unix seconds or milliseconds (speedate's watershed: a magnitude above 2·10¹⁰ is milliseconds).
    private static func fromUnix(_ number: Double) -> Result<Timestamp, Failure> {
        let seconds = abs(number) > 2e10 ? number / 1000 : number
        if seconds > 253_402_300_799 { return .failure(parsing("dates after 9999 are not supported as unix timestamps")) }
        if seconds < -62_167_219_200 { return .failure(parsing("dates before 0000 are not supported as unix timestamps")) }
        guard let timestamp = Timestamp(unixSeconds: seconds) else { return .failure(parsing("year 0 is out of range")) }
        return .success(timestamp)
    }

    /// `[+-] digits [. digits]` with at least one digit, the number speedate accepts as a timestamp.
    private static func unixNumber(_ bytes: [UInt8]) -> Double? {
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        var digits = 0
        var sawPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                digits += 1
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                return nil
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("+") { text.removeFirst() }
        if text.hasSuffix(".") { text += "0" }
        if text.hasPrefix(".") { text = "0" + text }
        if text.hasPrefix("-.") { text = "-0" + text.dropFirst() }
        return Double(text)
    }

    /// speedate's error for `bytes` read as an RFC 3339 date, `nil` when they are exactly one.
    private static func dateError(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 10 else { return "input is too short" }
        func isDigit(_ index: Int) -> Bool { bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9") }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(bytes[$1] - UInt8(ascii: "0")) } }
        guard (0..<4).allSatisfy(isDigit) else { return "invalid character in year" }
        guard bytes[4] == UInt8(ascii: "-") else { return "invalid date separator, expected `-`" }
        guard (5..<7).allSatisfy(isDigit) else { return "invalid character in month" }
        guard bytes[7] == UInt8(ascii: "-") else { return "invalid date separator, expected `-`" }
        guard (8..<10).allSatisfy(isDigit) else { return "invalid character in day" }
        let year = number(0..<4)
        let month = number(5..<7)
        let day = number(8..<10)
        let isLeap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let maxDay: Int
        switch month {
        case 1, 3, 5, 7, 8, 10, 12: maxDay = 31
        case 4, 6, 9, 11: maxDay = 30
        case 2: maxDay = isLeap ? 29 : 28
        default: return "month value is outside expected range of 1-12"
        }
        guard (1...maxDay).contains(day) else { return "day value is outside expected range" }
        guard bytes.count == 10 else { return "unexpected extra characters at the end of the input" }
        return nil
    }
}
