// Unsafe (JSON scanning): every read of `base[i]` is preceded by a check `i < end`, and a reader
// exists only inside the call that lent `base` (see JSONReader).

/// A JSON number, kept as the literal that was written (RFC 8259 §6).
///
/// JSON numbers have no range or precision limit, and parsers disagree on huge or very precise
/// values (RFC 8259 §6, RFC 7493 §2.2). Keeping the text means nothing is lost or rounded while
/// parsing; the caller chooses a reading (``int64`` or ``double``) and decides what an
/// out-of-range value means. Equality is lexical: `1`, `1.0` and `1e0` are different numbers.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal exactly as written, e.g. `-0`, `1.5e3`, `1767225600`.
    public let text: String

    /// A number from a literal already checked against the grammar by the parser.
    init(uncheckedText text: String) {
        self.text = text
    }

    /// The number with `value`'s decimal digits.
    public init(_ value: Int64) {
        text = String(value)
    }

    /// The number with `value`'s decimal digits.
    public init(_ value: Int) {
        text = String(value)
    }

    /// The shortest literal that reads back as `value`, or `nil` for infinities and NaN, which
    /// JSON cannot express (RFC 8259 §6).
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        // Swift prints finite doubles as `-0.0`, `1e-05`, `1.7976931348623157e+308`: all inside the
        // RFC 8259 grammar, and shortest round-trip, so reading `double` gives `value` back.
        text = value.description
    }

    /// The number written as `text`, or `nil` unless `text` is exactly one RFC 8259 §6 number
    /// with no surrounding whitespace.
    public init?(text: String) {
        var text = text
        let isNumber = text.withUTF8 { bytes -> Bool in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
            let end = unsafe try? JSONNumber.scan(base, from: 0, end: bytes.count)
            return end == bytes.count
        }
        guard isNumber else { return nil }
        self.text = text
    }

    /// Whether the literal is an integer: no fraction and no exponent.
    public var isInteger: Bool {
        !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The exact value when the literal is an integer (``isInteger``) inside `Int64`; `nil` otherwise.
    ///
    /// Literals with a fraction or exponent give `nil` even when integral (`1767225600.0`, `1e3`):
    /// an exact reading should come from an exact literal, and ``double`` serves the rest.
    /// `-0` reads as `0`.
    public var int64: Int64? {
        var value: Int64 = 0
        var isNegative = false
        for byte in text.utf8 {
            if byte == UInt8(ascii: "-") {
                isNegative = true
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            // Accumulate negatively so that Int64.min, whose magnitude has no positive Int64, fits.
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = shifted.subtractingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return nil }
            value = next
        }
        if isNegative { return value }
        return value == .min ? nil : -value
    }

    /// The nearest `Double`, or `nil` when the value overflows to infinity (`1e400`).
    ///
    /// Underflow is not an error: `1e-999` reads as `0`, as IEEE 754 rounding gives.
    public var double: Double? {
        var text = text
        if let exact = unsafe text.withUTF8(Self.exactSmallInteger) { return exact }
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// The value of a plain non-negative integer literal of at most 15 digits, `nil` for any other
    /// shape. Such an integer is exactly representable, so converting its integer value gives the
    /// same Double as parsing the text; NumericDate claims are always this shape, and this path
    /// builds no string.
    static func exactSmallInteger(_ digits: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !digits.isEmpty, digits.count <= 15 else { return nil }
        var value: Int64 = 0
        for unsafe byte in unsafe digits {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
        }
        return Double(value)
    }

    /// The literal.
    public var description: String { text }
}

extension JSONNumber {
    /// Scans one number (RFC 8259 §6) starting at `start` and returns the offset after it.
    ///
    ///     number = [ minus ] int [ frac ] [ exp ]
    ///     int    = zero / ( digit1-9 *DIGIT )
    ///     frac   = decimal-point 1*DIGIT
    ///     exp    = e [ minus / plus ] 1*DIGIT
    ///
    /// A letter, digit or `.` right after the number is refused here rather than later as a
    /// structural error, so `01`, `0x1`, `1.2.3` and `1e5e5` all read as bad numbers.
    @inline(__always)
    static func scan(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) throws(JSONError) -> Int {
        var index = start
        if unsafe base[index] == UInt8(ascii: "-") {
            index += 1
        }
        guard index < end else {
            throw JSONError(.invalidNumber, "a digit must follow '-'", offset: index)
        }
        if unsafe base[index] == UInt8(ascii: "0") {
            index += 1
        } else if unsafe isDigit(base[index]) {
            index += 1
            while index < end, unsafe isDigit(base[index]) { index += 1 }
        } else {
            let reason = index > start ? "a digit must follow '-'" : "a number must start with a digit or '-'"
            throw JSONError(.invalidNumber, reason, offset: index)
        }
        if index < end, unsafe base[index] == UInt8(ascii: ".") {
            index += 1
            guard index < end, unsafe isDigit(base[index]) else {
                throw JSONError(.invalidNumber, "a digit must follow the decimal point", offset: index)
            }
            while index < end, unsafe isDigit(base[index]) { index += 1 }
        }
        if index < end, unsafe base[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < end, unsafe base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < end, unsafe isDigit(base[index]) else {
                throw JSONError(.invalidNumber, "a digit must follow the exponent marker", offset: index)
            }
            while index < end, unsafe isDigit(base[index]) { index += 1 }
        }
        if index < end, unsafe isNumberContinuation(base[index]) {
            throw JSONError(
                .invalidNumber, "a number must not be followed by a letter, digit, '.', '+' or '-'", offset: index)
        }
        return index
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    @inline(__always)
    private static func isNumberContinuation(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return isDigit(byte) || (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }
}
