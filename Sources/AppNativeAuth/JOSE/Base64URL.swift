// Unsafe: the encoder writes exactly `outputCount` bytes into a string buffer of that capacity and
// reads `bytes[read...read+2]` only while three remain; the decoder's callers give an output of at
// least `decodedCount(input.count)` bytes, and table indices are bytes (< 256) into 256-entry tables.

/// Strict base64url without padding (RFC 7515 §2, RFC 4648 §5).
///
/// Strict means: only the 64 URL-safe characters, no `=` padding, no whitespace, no length
/// that leaves a dangling 6-bit group, and canonical trailing bits (RFC 4648 §3.5 makes
/// rejecting non-canonical encodings a MAY; we take it so one token has one spelling and a
/// token cache keyed by its text cannot be fooled by a second spelling).
public enum Base64URL: Sendable {
    /// Whether `byte` is in the base64url alphabet (RFC 4648 §5), without padding.
    public static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each input byte's 6-bit value pre-shifted into its place in a 24-bit group, one table per
    /// position, so a group of four characters is four loads and three ORs. A byte outside the
    /// alphabet maps to a value with bit 31 set in every table, which survives the ORs.
    private static let decodeTables: [UInt32] = {
        var tables = [UInt32](repeating: 0x8000_0000, count: 4 * 256)
        for (value, char) in alphabet.enumerated() {
            for position in 0..<4 {
                tables[position * 256 + Int(char)] = UInt32(value) << (18 - 6 * position)
            }
        }
        return tables
    }()

    /// Encodes bytes without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable({ unsafe encode(UnsafeRawBufferPointer($0)) }) {
            return encoded
        }
        return unsafe Array(bytes).withUnsafeBytes { unsafe encode($0) }
    }

    /// Encodes bytes without padding, written straight into the string's storage.
    public static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        let count = bytes.count
        let outputCount = (count * 4 + 2) / 3
        guard outputCount > 0 else { return "" }
        return unsafe String(unsafeUninitializedCapacity: outputCount) { out in
            unsafe alphabet.withUnsafeBufferPointer { table in
                var read = 0
                var written = 0
                while count - read >= 3 {
                    let group = unsafe UInt32(bytes[read]) << 16 | UInt32(bytes[read + 1]) << 8 | UInt32(bytes[read + 2])
                    unsafe out[written] = unsafe table[Int(group >> 18)]
                    unsafe out[written + 1] = unsafe table[Int(group >> 12 & 0x3F)]
                    unsafe out[written + 2] = unsafe table[Int(group >> 6 & 0x3F)]
                    unsafe out[written + 3] = unsafe table[Int(group & 0x3F)]
                    read += 3
                    written += 4
                }
                if count - read == 2 {
                    let group = unsafe UInt32(bytes[read]) << 16 | UInt32(bytes[read + 1]) << 8
                    unsafe out[written] = unsafe table[Int(group >> 18)]
                    unsafe out[written + 1] = unsafe table[Int(group >> 12 & 0x3F)]
                    unsafe out[written + 2] = unsafe table[Int(group >> 6 & 0x3F)]
                } else if count - read == 1 {
                    let group = unsafe UInt32(bytes[read]) << 16
                    unsafe out[written] = unsafe table[Int(group >> 18)]
                    unsafe out[written + 1] = unsafe table[Int(group >> 12 & 0x3F)]
                }
            }
            return outputCount
        }
    }

    /// Encodes the UTF-8 bytes of `text`.
    public static func encode(_ text: String) -> String { encode(Array(text.utf8)) }

    /// Decodes strictly; `nil` for any deviation from the canonical unpadded form.
    public static func decode(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let outputCount = decodedCount(input.count) else { return nil }
        var isValid = true
        let out = unsafe [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            isValid = unsafe decode(input, into: UnsafeMutableRawBufferPointer(buffer))
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
        guard remainder != 1, let source = unsafe input.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return false
        }
        let buffer = unsafe output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        return unsafe decodeTables.withUnsafeBufferPointer { tables in
            let t0 = tables.baseAddress!, t1 = unsafe t0 + 256, t2 = unsafe t0 + 512, t3 = unsafe t0 + 768
            var index = 0
            var written = 0
            let fullEnd = count - remainder
            var bad: UInt32 = 0
            while index < fullEnd {
                let group = unsafe t0[Int(source[index])] | t1[Int(source[index + 1])] | t2[Int(source[index + 2])]
                    | t3[Int(source[index + 3])]
                bad |= group
                unsafe buffer[written] = UInt8(truncatingIfNeeded: group >> 16)
                unsafe buffer[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                unsafe buffer[written + 2] = UInt8(truncatingIfNeeded: group)
                index += 4
                written += 3
            }
            if remainder == 2 {
                let group = unsafe t0[Int(source[index])] | t1[Int(source[index + 1])]
                // Canonical: the 4 unused low bits of the last character are zero.
                bad |= group | (group & 0xF000 != 0 ? 0x8000_0000 : 0)
                unsafe buffer[written] = UInt8(truncatingIfNeeded: group >> 16)
            } else if remainder == 3 {
                let group = unsafe t0[Int(source[index])] | t1[Int(source[index + 1])] | t2[Int(source[index + 2])]
                // Canonical: the 2 unused low bits of the last character are zero.
                bad |= group | (group & 0x00C0 != 0 ? 0x8000_0000 : 0)
                unsafe buffer[written] = UInt8(truncatingIfNeeded: group >> 16)
                unsafe buffer[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
            }
            return bad & 0x8000_0000 == 0
        }
    }

    /// Decodes the UTF-8 bytes of `text` strictly.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var copy = String(text)
        return copy.withUTF8 { unsafe decode(UnsafeRawBufferPointer($0)) }
    }
}
