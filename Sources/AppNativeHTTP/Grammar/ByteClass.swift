// Byte classes of the HTTP grammar, as branch-light bit tests on integer literals so the hot
// loops need no table loads or lazily initialised globals.

// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let sp: UInt8 = 0x20
    static let htab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let comma: UInt8 = 0x2C
    static let equals: UInt8 = 0x3D
    static let dquote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let slash: UInt8 = 0x2F
    static let asterisk: UInt8 = 0x2A
    static let hash: UInt8 = 0x23
}

enum ByteClass {
    /// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
    /// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    @inline(__always)
    static func isTchar(_ byte: UInt8) -> Bool {
        // Bit n of the first mask is byte n, bit n of the second is byte 64 + n.
        if byte < 64 { return (0x03FF_6CFA_0000_0000 as UInt64) >> byte & 1 != 0 }
        if byte < 128 { return (0x57FF_FFFF_C7FF_FFFE as UInt64) >> (byte &- 64) & 1 != 0 }
        return false
    }

    /// RFC 9110 §5.5: field-vchar = VCHAR / obs-text, that is 0x21–0x7E and 0x80–0xFF.
    @inline(__always)
    static func isFieldVchar(_ byte: UInt8) -> Bool { byte > 0x20 && byte != 0x7F }

    /// Whether every byte is printable ASCII or SP (0x20–0x7E): a field value that needs neither
    /// normalisation nor Latin-1 handling. Eight bytes per step; HTAB, controls, DEL and
    /// non-ASCII bytes all answer `false` (callers take their byte-by-byte path for those).
    static func isPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while count - index >= 8 {
            let word = unsafe UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            // A byte >= 0x80; a byte < 0x20 (the borrow sets its high bit when it was < 0x20 and
            // below 0x80); a byte equal to 0x7F (zero after the XOR). Exact as a yes/no answer.
            let below20 = (word &- ones &* 0x20) & ~word & highs
            let del = word ^ (ones &* 0x7F)
            let isDel = (del &- ones) & ~del & highs
            if (word & highs) | below20 | isDel != 0 { return false }
            index += 8
        }
        while index < count {
            let byte = unsafe base[index]
            if byte < 0x20 || byte >= 0x7F { return false }
            index += 1
        }
        return true
    }

    /// RFC 9110 §5.6.3: OWS = *( SP / HTAB ).
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == ASCII.sp || byte == ASCII.htab }

    /// Bytes accepted in a request target: VCHAR except "#" (RFC 9112 §3.2 never carries a
    /// fragment). The URI grammar is stricter, but clients send `|`, `{`, `"` and similar
    /// unencoded in queries; none of them can end the target or start a new line, which is
    /// what matters for framing. Routing validates paths further.
    @inline(__always)
    static func isTargetByte(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F && byte != ASCII.hash }

    /// RFC 5234 HEXDIG (case-insensitive, RFC 9112 §7.1), as its value; nil for other bytes.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte &- 0x30
        case 0x41...0x46: byte &- 0x41 &+ 10
        case 0x61...0x66: byte &- 0x61 &+ 10
        default: nil
        }
    }

    /// RFC 5234 DIGIT.
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// `1*DIGIT` as a number (Content-Length, RFC 9110 §8.6); nil when empty, when a byte is not a
    /// digit, or past 64 bits.
    static func decimalValue(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard !bytes.isEmpty else { return nil }
        var value: UInt64 = 0
        for unsafe byte in unsafe bytes {
            guard isDigit(byte) else { return nil }
            let (product, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = product.addingReportingOverflow(UInt64(byte &- 0x30))
            guard !overflowed && !carried else { return nil }
            value = sum
        }
        return value
    }

    /// ASCII lower case of a byte; other bytes unchanged.
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }
}

/// Eight bytes at a time for the long runs (field values, targets). Each test is exact about
/// whether *any* byte of the word matches (classic "has less than" / "has zero" bit tricks,
/// valid for thresholds up to 0x80); the caller then finds the byte one at a time.
enum Word {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    @inline(__always)
    static func load(_ bytes: UnsafePointer<UInt8>, _ index: Int) -> UInt64 {
        unsafe UInt64(littleEndian: UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self))
    }

    /// Whether any byte is below `threshold` (at most 0x80).
    @inline(__always)
    static func hasByte(_ word: UInt64, lessThan threshold: UInt8) -> Bool {
        (word &- ones &* UInt64(threshold)) & ~word & highBits != 0
    }

    /// Whether any byte equals `byte`.
    @inline(__always)
    static func hasByte(_ word: UInt64, equalTo byte: UInt8) -> Bool {
        let folded = word ^ (ones &* UInt64(byte))
        return (folded &- ones) & ~folded & highBits != 0
    }

    /// Whether all eight bytes may appear inside a field value without a closer look: none is a
    /// control (including HTAB, CR, LF) or DEL.
    @inline(__always)
    static func isPlainFieldContent(_ word: UInt64) -> Bool {
        fieldContentFlags(word) == 0
    }

    /// Nonzero when some byte needs a closer look inside a field value: every control (including
    /// HTAB, CR, LF) and DEL, and also 0x80–0x9F and 0xFF, which are allowed obs-text but rare
    /// enough to leave to the byte loop. One test instead of two: adding 1 to each byte's low
    /// seven bits maps exactly those bytes below 0x21 (DEL and 0xFF wrap to 0), and the low
    /// seven bits plus 1 never carry into the next byte. Flags of several words can be OR-ed.
    @inline(__always)
    static func fieldContentFlags(_ word: UInt64) -> UInt64 {
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let shifted = ((word & low7) &+ ones) & low7
        return (shifted &- ones &* 0x21) & highBits
    }

    /// Whether all eight bytes are request-target bytes (see `ByteClass.isTargetByte`).
    @inline(__always)
    static func isPlainTarget(_ word: UInt64) -> Bool {
        word & highBits == 0 && !hasByte(word, lessThan: 0x21) && !hasByte(word, equalTo: 0x7F)
            && !hasByte(word, equalTo: ASCII.hash)
    }
}
