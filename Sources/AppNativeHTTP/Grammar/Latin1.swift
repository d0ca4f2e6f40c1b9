// Field values may carry obs-text (0x80–0xFF, RFC 9110 §5.5) that is not UTF-8. Decoding them
// as UTF-8 would replace them with U+FFFD and change what gets forwarded, so message strings
// are ISO-8859-1: one byte, one Unicode scalar. ASCII (the common case) is the same in both.

enum Latin1 {
    /// The string whose scalars are these bytes.
    /// - Parameter containsHighBytes: whether any byte is ≥ 0x80; false lets the ASCII fast path run.
    @inline(__always)
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, containsHighBytes: Bool) -> String {
        if !containsHighBytes { return String(decoding: bytes, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: bytes.count * 2) { utf8 in
            var out = 0
            for byte in bytes {
                if byte < 0x80 {
                    utf8[out] = byte
                    out += 1
                } else {
                    utf8[out] = 0xC0 | byte >> 6
                    utf8[out + 1] = 0x80 | byte & 0x3F
                    out += 2
                }
            }
            return out
        }
    }

    /// Appends the wire bytes of `text`: scalars up to U+00FF as one byte each. A scalar above
    /// U+00FF has no Latin-1 byte; its UTF-8 bytes are written instead (all ≥ 0x80, so they
    /// stay obs-text and cannot end a line or a field).
    @inline(__always)
    static func append(_ text: String, to buffer: inout [UInt8]) {
        let isASCII = text.utf8.withContiguousStorageIfAvailable { utf8 in
            var high: UInt8 = 0
            for byte in utf8 { high |= byte }
            if high < 0x80 { buffer.append(contentsOf: utf8) }
            return high < 0x80
        }
        if isASCII == true { return }
        for scalar in text.unicodeScalars {
            if scalar.value <= 0xFF {
                buffer.append(UInt8(truncatingIfNeeded: scalar.value))
            } else {
                buffer.append(contentsOf: String(scalar).utf8)
            }
        }
    }
}
