internal import AppNativeJSON

/// A contract datetime (`contract/models.md` §0): ISO 8601 in, ISO 8601 out with the offset kept.
///
/// Kept as calendar fields plus the offset as given, not as an instant, so `+02:00` and an
/// offset-less time survive a round trip the way the Python reference writes them.
public struct Timestamp: Sendable, Hashable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int
    public let hour: Int
    public let minute: Int
    public let second: Int
    public let microsecond: Int
    /// Offset east of UTC in seconds; `nil` for an offset-less (local) time.
    public let utcOffsetSeconds: Int?

    /// A UTC time from Unix seconds (fractions kept to the microsecond).
    public init?(unixSeconds: Double) {
        guard unixSeconds.isFinite, abs(unixSeconds) < 253_402_300_800 else { return nil }
        let micros = (unixSeconds * 1_000_000).rounded()
        let totalMicros = Int64(micros)
        var seconds = totalMicros / 1_000_000
        var fraction = totalMicros % 1_000_000
        if fraction < 0 {
            fraction += 1_000_000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = Self.civil(fromDays: days)
        guard (1...9999).contains(year) else { return nil }
        self.init(
            uncheckedYear: year, month: month, day: day, hour: Int(secondOfDay / 3600),
            minute: Int(secondOfDay % 3600 / 60), second: Int(secondOfDay % 60), microsecond: Int(fraction),
            utcOffsetSeconds: 0)
    }

    /// A time from its fields, or `nil` when a field is out of range.
    public init?(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, microsecond: Int = 0,
        utcOffsetSeconds: Int?
    ) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...Self.daysIn(month: month, year: year)).contains(day), (0...23).contains(hour),
            (0...59).contains(minute), (0...59).contains(second), (0...999_999).contains(microsecond)
        else { return nil }
        if let utcOffsetSeconds, abs(utcOffsetSeconds) >= 86_400 { return nil }
        self.init(
            uncheckedYear: year, month: month, day: day, hour: hour, minute: minute, second: second,
            microsecond: microsecond, utcOffsetSeconds: utcOffsetSeconds)
    }

    private init(
        uncheckedYear year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, microsecond: Int,
        utcOffsetSeconds: Int?
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.microsecond = microsecond
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// Parses `YYYY-MM-DD`, optionally followed by `T` (or `t`, a space, `_`) and `HH:MM[:SS[.f…]]` and a
    /// zone `Z`, `±HH:MM`, `±HHMM` or `±HH`. Fractions beyond microseconds are truncated, as
    /// Python does. A date alone is midnight, offset-less.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        var position = 0
        func digits(_ count: Int) -> Int? {
            guard position + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<position + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            position += count
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }
        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")),
            let day = digits(2)
        else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        var microsecond = 0
        var offset: Int?
        if position < bytes.count {
            guard [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " "), UInt8(ascii: "_")].contains(bytes[position])
            else { return nil }
            position += 1
            guard let h = digits(2), expect(UInt8(ascii: ":")), let m = digits(2) else { return nil }
            hour = h
            minute = m
            if expect(UInt8(ascii: ":")) {
                guard let s = digits(2) else { return nil }
                second = s
                if expect(UInt8(ascii: ".")) || expect(UInt8(ascii: ",")) {
                    var count = 0
                    var value = 0
                    while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57 {
                        if count < 6 { value = value * 10 + Int(bytes[position] - 48) }
                        count += 1
                        position += 1
                    }
                    guard count > 0 else { return nil }
                    for _ in min(count, 6)..<6 { value *= 10 }
                    microsecond = value
                }
            }
            if expect(UInt8(ascii: "Z")) || expect(UInt8(ascii: "z")) {
                offset = 0
            } else if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                let sign = bytes[position] == UInt8(ascii: "-") ? -1 : 1
                position += 1
                // `±HH:MM` or `±HHMM`, as the reference's parser (speedate) reads offsets: the
                // minutes are required, so `+02` alone is refused.
                guard let offsetHours = digits(2) else { return nil }
                _ = expect(UInt8(ascii: ":"))
                guard let offsetMinutes = digits(2) else { return nil }
                guard offsetHours < 24, offsetMinutes < 60 else { return nil }
                offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
            }
            guard position == bytes.count else { return nil }
        }
        self.init(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, microsecond: microsecond,
            utcOffsetSeconds: offset)
    }

    /// Seconds since the Unix epoch; an offset-less time is read as UTC (the gateway has no
    /// device time zone to apply).
    public var unixSeconds: Double {
        let days = Self.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(utcOffsetSeconds ?? 0)
        return Double(seconds) + Double(microsecond) / 1_000_000
    }

    /// The contract's rendering: `2026-09-24T08:00:00Z`, `…T08:00:00.500000+02:00`,
    /// `…T08:00:00` offset-less; UTC as `Z`, a fraction as six digits only when not zero.
    public var iso8601: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        if microsecond != 0 { text += ".\(pad(microsecond, 6))" }
        if let utcOffsetSeconds {
            if utcOffsetSeconds == 0 {
                text += "Z"
            } else {
                let magnitude = abs(utcOffsetSeconds)
                text += (utcOffsetSeconds < 0 ? "-" : "+") + "\(pad(magnitude / 3600, 2)):\(pad(magnitude % 3600 / 60, 2))"
            }
        }
        return text
    }

    /// ``iso8601``.
    public var description: String { iso8601 }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (H. Hinnant's `days_from_civil`).
    private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `days(fromCivil:)` (H. Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}

extension Cursor {
    /// A `datetime` field, read as pydantic's lax mode does (``Timestamp/lax(_:)``).
    func timestamp() -> Timestamp? {
        switch Timestamp.lax(value) {
        case .success(let timestamp): return timestamp
        case .failure(let failure):
            report(failure)
            return nil
        }
    }
}
