// Field values may carry obs-text (0x80–0xFF, RFC 9110 §5.5) that is not UTF-8. Decoding them
// as UTF-8 would replace them with U+FFFD and change what gets forwarded, so message strings
// are ISO-8859-1: one byte, one Unicode scalar. ASCII (the common case) is the same in both.

// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

enum Latin1 {
    /// The string whose scalars are these bytes.
    /// - Parameter containsHighBytes: whether any byte is ≥ 0x80; false lets the ASCII fast path run.
    @inline(__always)
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, containsHighBytes: Bool) -> String {
        if !containsHighBytes { return unsafe String(decoding: bytes, as: UTF8.self) }
        return unsafe String(unsafeUninitializedCapacity: bytes.count * 2) { utf8 in
            var out = 0
            for unsafe byte in unsafe bytes {
                if byte < 0x80 {
                    unsafe utf8[out] = byte
                    out += 1
                } else {
                    unsafe utf8[out] = 0xC0 | byte >> 6
                    unsafe utf8[out + 1] = 0x80 | byte & 0x3F
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
        // Native strings are contiguous UTF-8, so `span` reads them in place, bounds-checked.
        let utf8 = text.utf8.span
        var high: UInt8 = 0
        for index in utf8.indices { high |= utf8[index] }
        if high < 0x80 {
            buffer.append(contentsOf: text.utf8)
            return
        }
        for scalar in text.unicodeScalars {
            if scalar.value <= 0xFF {
                buffer.append(UInt8(truncatingIfNeeded: scalar.value))
            } else {
                buffer.append(contentsOf: String(scalar).utf8)
            }
        }
    }
}
