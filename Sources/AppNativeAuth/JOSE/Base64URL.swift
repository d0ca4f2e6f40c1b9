/// Strict base64url without padding (RFC 7515 §2, RFC 4648 §5).
///
/// Strict means: only the 64 URL-safe characters, no `=` padding, no whitespace, no length
/// that leaves a dangling 6-bit group, and canonical trailing bits (RFC 4648 §3.5 makes
/// rejecting non-canonical encodings a MAY; we take it so one token has one spelling and a
/// token cache keyed by its text cannot be fooled by a second spelling).
public enum Base64URL: Sendable {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Value of each input byte, or 0xFF when the byte is not in the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = b1 == nil ? nil : iterator.next()
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            if let b1 {
                out.append(alphabet[Int((b1 & 0x0F) << 2 | (b2 ?? 0) >> 6)])
                if let b2 { out.append(alphabet[Int(b2 & 0x3F)]) }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes the UTF-8 bytes of `text`.
    public static func encode(_ text: String) -> String { encode(Array(text.utf8)) }

    /// Decodes strictly; `nil` for any deviation from the canonical unpadded form.
    public static func decode(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let outputCount = decodedCount(input.count) else { return nil }
        var isValid = true
        let out = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            isValid = decode(input, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = isValid ? outputCount : 0
        }
        return isValid ? out : nil
    }

    /// The decoded length of `count` input characters, or `nil` for a length no canonical
    /// unpadded encoding has.
    @inline(__always)
    static func decodedCount(_ count: Int) -> Int? {
        let remainder = count % 4
        if remainder == 1 { return nil }
        return count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
    }

    /// Decodes strictly into `output`, which holds at least `decodedCount(input.count)` bytes;
    /// `false` for any deviation from the canonical unpadded form (the output is then garbage).
    /// No allocation: the verifier decodes into stack buffers.
    static func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Bool {
        let count = input.count
        let remainder = count % 4
        if count == 0 { return true }
        guard remainder != 1, let source = input.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return false
        }
        let buffer = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        return decodeTable.withUnsafeBufferPointer { tableBuffer in
            let table = tableBuffer.baseAddress!
            var index = 0
            var written = 0
            let fullEnd = count - remainder
            var bad: UInt8 = 0
            while index < fullEnd {
                let a = table[Int(source[index])], b = table[Int(source[index + 1])]
                let c = table[Int(source[index + 2])], d = table[Int(source[index + 3])]
                bad |= a | b | c | d
                buffer[written] = a << 2 | b >> 4
                buffer[written + 1] = b << 4 | c >> 2
                buffer[written + 2] = c << 6 | d
                index += 4
                written += 3
            }
            if remainder == 2 {
                let a = table[Int(source[index])], b = table[Int(source[index + 1])]
                // Canonical: the 4 unused low bits of the last character are zero.
                bad |= a | b | (b & 0x0F != 0 ? 0xFF : 0)
                buffer[written] = a << 2 | b >> 4
            } else if remainder == 3 {
                let a = table[Int(source[index])], b = table[Int(source[index + 1])], c = table[Int(source[index + 2])]
                // Canonical: the 2 unused low bits of the last character are zero.
                bad |= a | b | c | (c & 0x03 != 0 ? 0xFF : 0)
                buffer[written] = a << 2 | b >> 4
                buffer[written + 1] = b << 4 | c >> 2
            }
            // Invalid characters map to 0xFF, so any of them sets the top bits.
            return bad & 0xC0 == 0
        }
    }

    /// Decodes the UTF-8 bytes of `text` strictly.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var copy = String(text)
        return copy.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
    }
}
