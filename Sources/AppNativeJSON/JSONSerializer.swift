// Unsafe: the string's UTF-8 storage is lent for the call; runs are copied out by `position < end`.

/// Writes JSON values as compact RFC 8259 text.
///
/// The output has no whitespace, members in the object's order (or sorted), numbers exactly as
/// their literal, and non-ASCII characters as raw UTF-8 (RFC 8259 §8.1). Strings escape only what
/// §7 requires: `"`, `\` and U+0000–U+001F, using the short forms `\b \f \n \r \t` where they
/// exist and `\u00xx` (lower-case hex) otherwise. `/` is not escaped.
public enum JSONSerializer: Sendable {
    /// The UTF-8 text of `value`.
    ///
    /// - Parameters:
    ///   - value: the value to write; its nesting should stay within
    ///     ``JSONParser/maxSupportedDepth``, as writing recurses once per level.
    ///   - sortingKeys: whether object members are written in ascending order of their names'
    ///     UTF-8 bytes (which is Unicode scalar order) instead of their own order. This is a
    ///     stable order, not the RFC 8785 canonical form (which sorts by UTF-16 code units and
    ///     rewrites numbers).
    public static func serialize(_ value: JSONValue, sortingKeys: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        write(value, to: &output, sortingKeys: sortingKeys)
        return output
    }

    /// The text of `value` as a `String`; see ``serialize(_:sortingKeys:)``.
    public static func string(_ value: JSONValue, sortingKeys: Bool = false) -> String {
        String(decoding: serialize(value, sortingKeys: sortingKeys), as: UTF8.self)
    }

    private static func write(_ value: JSONValue, to output: inout [UInt8], sortingKeys: Bool) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let flag):
            output.append(contentsOf: flag ? "true".utf8 : "false".utf8)
        case .number(let number):
            output.append(contentsOf: number.text.utf8)
        case .string(let text):
            writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output, sortingKeys: sortingKeys)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            var members = object.members
            if sortingKeys {
                members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            }
            for (position, member) in members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, to: &output, sortingKeys: sortingKeys)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        let written: Void? = unsafe text.utf8.withContiguousStorageIfAvailable { unsafe writeEscaped($0, to: &output) }
        if written == nil {
            unsafe Array(text.utf8).withUnsafeBufferPointer { unsafe writeEscaped($0, to: &output) }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Copies runs that need no escape in one go; only `"`, `\` and controls break a run.
    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        guard let base = bytes.baseAddress else { return }
        let end = bytes.count
        var runStart = 0
        var position = 0
        while true {
            position = unsafe nextEscapePosition(base, from: position, end: end)
            if position > runStart {
                unsafe output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: position - runStart))
            }
            guard position < end else { return }
            unsafe writeEscape(for: base[position], to: &output)
            position += 1
            runStart = position
        }
    }

    /// The position of the first `"`, `\` or control byte at or after `start`, or `end`.
    @inline(__always)
    private static func nextEscapePosition(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var position = start
        while end - position >= 8 {
            let word = unsafe UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // Per byte, the high bit ends up set for 0x22, 0x5C or a byte below 0x20 (bytes of
            // 0x80 and above are excluded by `~word`). The lowest flagged byte is exact.
            let flags =
                ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20)) & ~word & highs
            if flags != 0 {
                return position + flags.trailingZeroBitCount >> 3
            }
            position += 8
        }
        while position < end {
            let byte = unsafe base[position]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C { return position }
            position += 1
        }
        return end
    }

    private static func writeEscape(for byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: output.append(UInt8(ascii: "\""))
        case 0x5C: output.append(UInt8(ascii: "\\"))
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            // Only U+0000-U+001F get here, so the high digit is 0 or 1.
            let low = byte & 0xF
            output.append(UInt8(ascii: "u"))
            output.append(UInt8(ascii: "0"))
            output.append(UInt8(ascii: "0"))
            output.append(UInt8(ascii: "0") + byte >> 4)
            output.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
        }
    }
}
