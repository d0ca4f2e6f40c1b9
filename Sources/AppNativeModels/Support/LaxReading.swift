internal import AppNativeJSON

/// The readings of pydantic v2's lax mode (pydantic-core 2.x), which the Python reference applies
/// to every body and every callback result: what a `float`, `int` or `bool` field accepts besides
/// its own JSON type, and the error type pydantic gives when it does not.
///
/// Counter-intuitive cases, all pydantic's: `true` is a valid float (1.0); `"1_000"` is 1000;
/// `"inf"`, `"nan"` and `"1e400"` are floats (infinite or NaN); `1.0` and `"1.00"` are integers but
/// `"1."` and `"1e3"` are not, while the JSON number `1e3` is; `" 12 "` is a number but
/// `" true "` is not a boolean; `2` is refused as a boolean with a different error type
/// (`bool_parsing`) than `0.5` (`bool_type`).
enum LaxReading {
    /// Why a value is not of the field's type, as pydantic's error type and message.
    struct Failure: Error, Equatable {
        let type: String
        let message: String
        /// pydantic's `ctx` for the error, when it has one (`{"error": …}` for datetimes).
        var context: JSONValue? = nil

        static let floatType = Failure(type: "float_type", message: "Input should be a valid number")
        static let floatParsing = Failure(
            type: "float_parsing", message: "Input should be a valid number, unable to parse string as a number")
        static let intType = Failure(type: "int_type", message: "Input should be a valid integer")
        static let intParsing = Failure(
            type: "int_parsing", message: "Input should be a valid integer, unable to parse string as an integer")
        static let intFromFloat = Failure(
            type: "int_from_float", message: "Input should be a valid integer, got a number with a fractional part")
        static let intParsingSize = Failure(
            type: "int_parsing_size", message: "Unable to parse input string as an integer, exceeded maximum size")
        static let boolType = Failure(type: "bool_type", message: "Input should be a valid boolean")
        static let boolParsing = Failure(
            type: "bool_parsing", message: "Input should be a valid boolean, unable to interpret input")
    }

    /// An integer field's value: exact when it fits `Int`, otherwise only its magnitude is known
    /// (pydantic keeps arbitrary-size integers; the gateway can only judge their bounds).
    enum Integer: Equatable {
        case exact(Int)
        case outOfRange(Double)
    }

    // MARK: float

    /// A `float` field: a JSON number, a boolean (0.0 / 1.0), or a string Rust's `f64` parser reads
    /// after trimming Unicode whitespace and removing underscores (none leading, trailing or doubled).
    /// The result may be infinite or NaN (`"inf"`, `"nan"`, `"1e400"`, a literal beyond `Double`).
    static func float(_ value: JSONValue) -> Result<Double, Failure> {
        switch value {
        case .number(let number):
            if let double = number.double {
                // An integer literal is read as a Python int first, and int 0 has no sign: `-0` is 0.0.
                let isIntegerLiteral = !number.text.utf8.contains {
                    $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
                }
                return .success(double == 0 && isIntegerLiteral ? 0 : double)
            }
            // Beyond Double's range: Python reads such a literal as ±inf.
            return .success(number.text.hasPrefix("-") ? -.infinity : .infinity)
        case .bool(let flag):
            return .success(flag ? 1 : 0)
        case .string(let text):
            guard let double = floatText(text) else { return .failure(.floatParsing) }
            return .success(double)
        default:
            return .failure(.floatType)
        }
    }

    /// Rust's `str::parse::<f64>` grammar over the trimmed, underscore-free text.
    static func floatText(_ text: String) -> Double? {
        guard let trimmed = removingUnderscores(trimmed(text)) else { return nil }
        let bytes = Array(trimmed.utf8)
        var index = 0
        var isNegative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            isNegative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        let rest = String(decoding: bytes[index...], as: UTF8.self).lowercased()
        if rest == "inf" || rest == "infinity" { return isNegative ? -.infinity : .infinity }
        if rest == "nan" { return .nan }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var integerDigits = 0
        while index < bytes.count, isDigit(bytes[index]) {
            index += 1
            integerDigits += 1
        }
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, isDigit(bytes[index]) {
                index += 1
                fractionDigits += 1
            }
        }
        guard integerDigits + fractionDigits > 0 else { return nil }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            var exponentDigits = 0
            while index < bytes.count, isDigit(bytes[index]) {
                index += 1
                exponentDigits += 1
            }
            guard exponentDigits > 0 else { return nil }
        }
        guard index == bytes.count else { return nil }
        // The grammar is checked above, so Swift's reader (which would also take hex and `nan(…)`)
        // only ever sees a decimal literal here.
        return Double(trimmed)
    }

    // MARK: int

    /// An `int` field: a JSON integer; a JSON number with no fractional part inside `Int64`
    /// (`int_from_float` otherwise, `int_parsing_size` beyond); a boolean (0 / 1); or a string of
    /// an optionally signed integer (single underscores between digits allowed) after trimming
    /// Unicode whitespace and a `.0…` suffix.
    static func int(_ value: JSONValue) -> Result<Integer, Failure> {
        switch value {
        case .number(let number):
            if number.isInteger {
                if let exact = number.int64, let int = Int(exactly: exact) { return .success(.exact(int)) }
                return .success(.outOfRange(number.double ?? (number.text.hasPrefix("-") ? -.infinity : .infinity)))
            }
            guard let double = number.double else { return .failure(.intParsingSize) }
            guard double == double.rounded(.towardZero) else { return .failure(.intFromFloat) }
            // i64's range, as pydantic-core converts a float; 2^63 itself is outside.
            guard double >= -9_223_372_036_854_775_808, double < 9_223_372_036_854_775_808, let int = Int(exactly: double)
            else { return .failure(.intParsingSize) }
            return .success(.exact(int))
        case .bool(let flag):
            return .success(.exact(flag ? 1 : 0))
        case .string(let text):
            return intText(text).map(Result.success) ?? .failure(.intParsing)
        default:
            return .failure(.intType)
        }
    }

    static func intText(_ text: String) -> Integer? {
        var body = Substring(trimmed(text))
        if let dot = body.firstIndex(of: ".") {
            let zeros = body[body.index(after: dot)...]
            guard !zeros.isEmpty, zeros.allSatisfy({ $0 == "0" }) else { return nil }
            body = body[..<dot]
        }
        var isNegative = false
        if let sign = body.first, sign == "+" || sign == "-" {
            isNegative = sign == "-"
            body = body.dropFirst()
        }
        guard let digits = removingUnderscores(String(body)), !digits.isEmpty,
            digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        if let magnitude = Int(digits) { return .exact(isNegative ? -magnitude : magnitude) }
        let approximate = Double(digits) ?? .infinity
        return .outOfRange(isNegative ? -approximate : approximate)
    }

    // MARK: bool

    /// A `bool` field: a JSON boolean; the numbers 0 and 1 (`1.0` too); the strings `0 off f false
    /// n no` and `1 on t true y yes` in any case, untrimmed. Other integral numbers are
    /// `bool_parsing`, fractional ones `bool_type`.
    static func bool(_ value: JSONValue) -> Result<Bool, Failure> {
        switch value {
        case .bool(let flag):
            return .success(flag)
        case .number(let number):
            guard let double = number.double else { return .failure(.boolParsing) }
            if double == 0 { return .success(false) }
            if double == 1 { return .success(true) }
            return .failure(number.isInteger || double == double.rounded(.towardZero) ? .boolParsing : .boolType)
        case .string(let text):
            switch text.lowercased() {
            case "0", "off", "f", "false", "n", "no": return .success(false)
            case "1", "on", "t", "true", "y", "yes": return .success(true)
            default: return .failure(.boolParsing)
            }
        default:
            return .failure(.boolType)
        }
    }

    // MARK: text

    /// `text` without the Unicode `White_Space` characters at either end (Rust's `str::trim`,
    /// which pydantic-core applies to numeric strings; unlike Python's `str.strip`, it keeps
    /// U+001C…U+001F).
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhiteSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isWhiteSpace($0) }) ?? first
        return String(scalars[first...last])
    }

    static func isWhiteSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// `text` with its underscores removed, or `nil` when one leads, trails or follows another
    /// (pydantic-core's rule for numeric strings).
    static func removingUnderscores(_ text: String) -> String? {
        guard text.contains("_") else { return text }
        guard !text.hasPrefix("_"), !text.hasSuffix("_"), !text.contains("__") else { return nil }
        return String(text.filter { $0 != "_" })
    }
}
