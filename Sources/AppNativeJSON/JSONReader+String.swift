// Strings (RFC 8259 §7) and UTF-8 well-formedness (RFC 8259 §8.1, Unicode Table 3-7).

// Unsafe (JSON scanning): every read of `base[i]` is preceded by a check `i < end`, and a reader
// exists only inside the call that lent `base` (see JSONReader).

extension JSONReader {
    /// Reads a string starting at its opening quote and hands its decoded UTF-8 to `body`.
    ///
    ///     string = quotation-mark *char quotation-mark
    ///     char   = unescaped / escape ( %x22 / %x5C / %x2F / %x62 / %x66 / %x6E / %x72 / %x74 / %x75 4HEXDIG )
    ///     unescaped = %x20-21 / %x23-5B / %x5D-10FFFF
    ///
    /// Without escapes `body` sees the validated input bytes themselves; with escapes it sees
    /// `scratch`. Either way the bytes are only valid during the call.
    @inline(__always)
    mutating func readString<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) throws(JSONError) -> Result {
        let opening = index
        index += 1
        let start = index
        while true {
            skipPlainASCII()
            guard index < end else { throw JSONError(.syntax, "a string is not terminated", offset: opening) }
            let byte = unsafe base[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return unsafe body(UnsafeBufferPointer(start: base + start, count: index - 1 - start))
            }
            if byte == UInt8(ascii: "\\") {
                try readEscapedString(contentStart: start, opening: opening)
                return unsafe scratch.withUnsafeBufferPointer(body)
            }
            try skipNonASCIIOrControl()
        }
    }

    /// Reads a string value.
    mutating func readString() throws(JSONError) -> String {
        unsafe try readString(Self.makeString)
    }

    /// A string from bytes already checked to be well-formed UTF-8.
    @inline(__always)
    static func makeString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        // `String` re-validates either way; measured, the uninitialised-capacity initialiser is
        // the cheaper one for short strings, which are stored inline without an allocation.
        if bytes.count <= 15 {
            return unsafe String(unsafeUninitializedCapacity: bytes.count) { buffer in
                _ = unsafe buffer.initialize(fromContentsOf: bytes)
                return bytes.count
            }
        }
        return unsafe String(decoding: bytes, as: UTF8.self)
    }

    /// Continues a string that has escapes, decoding its whole content into `scratch`.
    private mutating func readEscapedString(contentStart: Int, opening: Int) throws(JSONError) {
        scratch.removeAll(keepingCapacity: true)
        var runStart = contentStart
        while true {
            skipPlainASCII()
            guard index < end else { throw JSONError(.syntax, "a string is not terminated", offset: opening) }
            let byte = unsafe base[index]
            if byte == UInt8(ascii: "\"") {
                appendRun(from: runStart)
                index += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                appendRun(from: runStart)
                try readEscape(opening: opening)
                runStart = index
                continue
            }
            try skipNonASCIIOrControl()
        }
    }

    @inline(__always)
    private mutating func appendRun(from start: Int) {
        guard index > start else { return }
        unsafe scratch.append(contentsOf: UnsafeBufferPointer(start: base + start, count: index - start))
    }

    /// Advances over printable ASCII other than `"` and `\`, eight bytes at a time while possible.
    @inline(__always)
    private mutating func skipPlainASCII() {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while end - index >= 8 {
            let word = unsafe UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // Per byte, the high bit ends up set for a byte equal to 0x22 or 0x5C, below 0x20, or
            // at or above 0x80. Borrows only spread upwards, so the lowest flagged byte is exact.
            let flags =
                ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word | word)
                & highs
            if flags == 0 {
                index += 8
            } else {
                index += flags.trailingZeroBitCount >> 3
                return
            }
        }
        while index < end {
            let byte = unsafe base[index]
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { return }
            index += 1
        }
    }

    /// Steps over the byte at `index`, which `skipPlainASCII` stopped at and is neither `"` nor `\`.
    @inline(__always)
    private mutating func skipNonASCIIOrControl() throws(JSONError) {
        let byte = unsafe base[index]
        if byte < 0x20 {
            throw JSONError(.syntax, "a control character in a string must be escaped", offset: index)
        }
        let length = utf8SequenceLength(at: index)
        guard length > 0 else { throw JSONError(.invalidUTF8, "ill-formed UTF-8", offset: index) }
        index += length
    }

    /// Decodes one escape at `index` (a backslash) into `scratch`.
    private mutating func readEscape(opening: Int) throws(JSONError) {
        let escape = index
        guard end - index >= 2 else { throw JSONError(.syntax, "a string is not terminated", offset: opening) }
        let decoded: UInt8
        switch unsafe base[index + 1] {
        case UInt8(ascii: "\""): decoded = 0x22
        case UInt8(ascii: "\\"): decoded = 0x5C
        case UInt8(ascii: "/"): decoded = 0x2F
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            try readUnicodeEscape()
            return
        default:
            throw JSONError(.invalidEscape, "unknown escape", offset: escape)
        }
        scratch.append(decoded)
        index += 2
    }

    /// Decodes `\uXXXX`, joining a high-low surrogate pair into one scalar (RFC 8259 §7).
    private mutating func readUnicodeEscape() throws(JSONError) {
        let escape = index
        guard let unit = hexQuad(at: index + 2) else {
            throw JSONError(.invalidEscape, "\\u must be followed by four hex digits", offset: escape)
        }
        index += 6
        var scalar = unit
        switch unit {
        case 0xD800...0xDBFF:
            if end - index >= 6, unsafe base[index] == UInt8(ascii: "\\"), unsafe base[index + 1] == UInt8(ascii: "u"),
                let low = hexQuad(at: index + 2), (0xDC00...0xDFFF).contains(low)
            {
                scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                index += 6
            } else {
                try loneSurrogate(at: escape)
                return
            }
        case 0xDC00...0xDFFF:
            try loneSurrogate(at: escape)
            return
        default:
            break
        }
        appendUTF8(scalar)
    }

    /// RFC 7493 §2.1: a surrogate outside a pair is no character at all; readers would turn it
    /// into U+FFFD, into WTF-8, or fail, so by default it is refused.
    private mutating func loneSurrogate(at escape: Int) throws(JSONError) {
        guard allowsLoneSurrogates else {
            throw JSONError(.loneSurrogate, "a \\u escape names a surrogate outside a pair", offset: escape)
        }
        appendUTF8(0xFFFD)
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// The value of four hex digits at `position`, or `nil` when any is missing or not hex.
    private func hexQuad(at position: Int) -> UInt32? {
        guard end - position >= 4 else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = unsafe base[position + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// The length of the well-formed UTF-8 sequence at `position`, or 0 when it is ill-formed
    /// (overlong, an encoded surrogate, above U+10FFFF, truncated, or a stray continuation byte).
    ///
    /// Unicode Table 3-7, well-formed byte sequences:
    ///
    ///     U+0000..U+007F     00..7F
    ///     U+0080..U+07FF     C2..DF 80..BF
    ///     U+0800..U+0FFF     E0     A0..BF 80..BF
    ///     U+1000..U+CFFF     E1..EC 80..BF 80..BF
    ///     U+D000..U+D7FF     ED     80..9F 80..BF
    ///     U+E000..U+FFFF     EE..EF 80..BF 80..BF
    ///     U+10000..U+3FFFF   F0     90..BF 80..BF 80..BF
    ///     U+40000..U+FFFFF   F1..F3 80..BF 80..BF 80..BF
    ///     U+100000..U+10FFFF F4     80..8F 80..BF 80..BF
    func utf8SequenceLength(at position: Int) -> Int {
        let lead = unsafe base[position]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: return 0
        }
        guard end - position >= length, unsafe secondRange.contains(base[position + 1]) else { return 0 }
        for offset in 2..<length where unsafe base[position + offset] & 0xC0 != 0x80 {
            return 0
        }
        return length
    }
}
