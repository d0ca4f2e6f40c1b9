internal import AppNativeJSON

/// Numbers as the Python reference writes them to a backend (`model_dump_json`, pydantic-core):
/// a `float` field is always a float literal (`12` is written `12.0`), with the shortest digits
/// that read back as the same double, in positional notation for decimal exponents −5 through 15
/// and as `1e+16` / `1e-7` outside them; an integer literal becomes the float of that integer
/// (`-0` is `0.0`). A number inside an opaque object (`dict[str, Any]`) is
/// what Python's JSON reader made of it: an integer literal stays an integer, anything with a
/// fraction or an exponent becomes a float.
enum PythonNumberText {
    /// `number` as a Python float; the literal itself when it has no finite double (the
    /// decoder refuses those, so this only keeps the writer total).
    static func float(_ number: JSONNumber) -> JSONNumber {
        guard let double = number.double, double.isFinite else { return number }
        // An integer literal is read as a Python int first, and int 0 has no sign: `-0` is `0.0`.
        let value = double == 0 && isIntegerLiteral(number.text) ? 0 : double
        return JSONNumber(text: floatText(value)) ?? number
    }

    /// A JSON value of an opaque object with its numbers as Python read them.
    static func opaque(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let number):
            return .number(isIntegerLiteral(number.text) ? integer(number) : float(number))
        case .array(let elements):
            return .array(elements.map(opaque))
        case .object(let object):
            return .object(opaque(object))
        default:
            return value
        }
    }

    static func opaque(_ object: JSONObject) -> JSONObject {
        JSONObject(object.map { ($0.key, opaque($0.value)) })
    }

    /// An integer literal as Python's `int` writes it: only `-0` changes.
    private static func integer(_ number: JSONNumber) -> JSONNumber {
        number.text == "-0" ? JSONNumber(0) : number
    }

    private static func isIntegerLiteral(_ text: String) -> Bool {
        !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The float text of pydantic-core for a finite double.
    static func floatText(_ double: Double) -> String {
        guard double != 0 else { return double.sign == .minus ? "-0.0" : "0.0" }
        // Swift's description has the shortest round-trip digits, as Python's repr; only the
        // notation differs, so the digits and the decimal exponent are taken from it.
        let description = double.magnitude.description
        var digits: [UInt8] = []
        var exponent = 0
        let parts = description.utf8.split(separator: UInt8(ascii: "e"), maxSplits: 1, omittingEmptySubsequences: false)
        let mantissa = Array(parts[0])
        let pointIndex = mantissa.firstIndex(of: UInt8(ascii: ".")) ?? mantissa.count
        let integerDigits = mantissa[..<pointIndex]
        let fractionDigits = pointIndex < mantissa.count ? mantissa[(pointIndex + 1)...] : []
        let all = Array(integerDigits) + Array(fractionDigits)
        guard let firstNonZero = all.firstIndex(where: { $0 != UInt8(ascii: "0") }) else { return "0.0" }
        // The decimal exponent of the first significant digit.
        exponent = integerDigits.count - 1 - firstNonZero
        if parts.count == 2, let shift = Int(String(decoding: parts[1], as: UTF8.self)) {
            exponent += shift
        }
        digits = Array(all[firstNonZero...])
        while digits.count > 1, digits.last == UInt8(ascii: "0") { digits.removeLast() }
        let sign = double.sign == .minus ? "-" : ""
        let text = String(decoding: digits, as: UTF8.self)
        if exponent < -5 || exponent >= 16 {
            let head = String(text.prefix(1))
            let tail = text.dropFirst()
            return sign + head + (tail.isEmpty ? "" : "." + tail) + "e" + (exponent < 0 ? "-" : "+") + String(exponent.magnitude)
        }
        if exponent < 0 {
            return sign + "0." + String(repeating: "0", count: -exponent - 1) + text
        }
        let integerCount = exponent + 1
        if digits.count <= integerCount {
            return sign + text + String(repeating: "0", count: integerCount - digits.count) + ".0"
        }
        return sign + String(text.prefix(integerCount)) + "." + String(text.dropFirst(integerCount))
    }
}
