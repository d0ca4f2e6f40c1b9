// Unsafe: the decoder writes `written < outputCount` bytes into a SecretBytes buffer of `outputCount`
// bytes, and cleanses its scratch symbols through their own buffer.

/// Strict standard base64 (RFC 4648 §4) for PEM bodies: padded to a multiple of four, `=` only
/// at the end, canonical trailing bits. Decodes straight into wiped storage.
enum Base64 {
    /// Decodes the concatenation of `lines`; nil if it is empty or not canonical base64.
    static func decode(_ lines: [Substring]) -> SecretBytes? {
        var symbols = [UInt8]()
        symbols.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count })
        for line in lines { symbols.append(contentsOf: line.utf8) }
        defer { unsafe symbols.withUnsafeMutableBytes { unsafe OpenSSLMemory.cleanse($0) } }

        guard !symbols.isEmpty, symbols.count % 4 == 0 else { return nil }
        var padding = 0
        if symbols[symbols.count - 1] == UInt8(ascii: "=") { padding += 1 }
        if symbols[symbols.count - 2] == UInt8(ascii: "=") { padding += 1 }
        let outputCount = symbols.count / 4 * 3 - padding

        return unsafe try? SecretBytes(count: outputCount) { (output: UnsafeMutableRawBufferPointer) throws(DecodingFailure) in
            var written = 0
            var index = 0
            while index < symbols.count {
                let isLastQuad = index + 4 == symbols.count
                var quad: UInt32 = 0
                for offset in 0..<4 {
                    let symbol = symbols[index + offset]
                    let value: UInt32
                    if symbol == UInt8(ascii: "="), isLastQuad, offset >= 4 - padding {
                        value = 0
                    } else if let decoded = sextet(symbol) {
                        value = decoded
                    } else {
                        throw DecodingFailure()
                    }
                    quad = quad << 6 | value
                }
                // Canonical encodings leave the bits under the padding zero.
                if isLastQuad, padding == 1, quad & 0xff != 0 { throw DecodingFailure() }
                if isLastQuad, padding == 2, quad & 0xffff != 0 { throw DecodingFailure() }
                let produced = isLastQuad ? 3 - padding : 3
                for byteIndex in 0..<produced {
                    unsafe output[written] = UInt8(truncatingIfNeeded: quad >> (16 - 8 * UInt32(byteIndex)))
                    written += 1
                }
                index += 4
            }
        }
    }

    private struct DecodingFailure: Error {}

    private static func sextet(_ symbol: UInt8) -> UInt32? {
        switch symbol {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(symbol - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(symbol - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(symbol - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
