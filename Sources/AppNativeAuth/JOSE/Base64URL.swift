// Unsafe: the encoder writes exactly `outputCount` bytes into a string buffer of that capacity and
// reads `bytes[read...read+2]` only while three remain. The decoder reads and writes through
// `Span` and `MutableSpan` (bounds-checked); its only unsafe step is viewing a caller's raw buffer
// of bytes as one, borrowed for the call.

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
    /// alphabet maps to a value with bit 31 set in every table, which survives the ORs. 256 entries
    /// each: indexed by a byte, so the bounds check is proved away.
    private static let decodeTable0 = decodeTable(position: 0)
    private static let decodeTable1 = decodeTable(position: 1)
    private static let decodeTable2 = decodeTable(position: 2)
    private static let decodeTable3 = decodeTable(position: 3)

    private static func decodeTable(position: Int) -> InlineArray<256, UInt32> {
        var table = InlineArray<256, UInt32>(repeating: 0x8000_0000)
        for (value, char) in alphabet.enumerated() {
            table[Int(char)] = UInt32(value) << (18 - 6 * position)
        }
        return table
    }

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
        decode(unsafe input.assumingMemoryBound(to: UInt8.self).span)
    }

    /// Decodes strictly; `nil` for any deviation from the canonical unpadded form.
    public static func decode(_ input: Span<UInt8>) -> [UInt8]? {
        guard let outputCount = decodedCount(input.count) else { return nil }
        var out = [UInt8](repeating: 0, count: outputCount)
        var output = out.mutableSpan
        guard decode(input, into: &output) else { return nil }
        return out
    }

    /// The decoded length of `count` input characters, or `nil` for a length no canonical
    /// unpadded encoding has.
    @inline(__always)
    static func decodedCount(_ count: Int) -> Int? {
        let remainder = count % 4
        if remainder == 1 { return nil }
        return count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
    }

    /// Decodes strictly into the first `decodedCount(input.count)` bytes of `output` (a shorter
    /// output is a programming error and traps); `false` for any deviation from the canonical
    /// unpadded form (the output is then garbage). No allocation: the verifier decodes into
    /// stack storage.
    static func decode(_ input: Span<UInt8>, into output: inout MutableSpan<UInt8>) -> Bool {
        let count = input.count
        let remainder = count % 4
        if count == 0 { return true }
        guard remainder != 1 else { return false }
        let t0 = decodeTable0.span, t1 = decodeTable1.span, t2 = decodeTable2.span, t3 = decodeTable3.span
        var index = 0
        var written = 0
        let fullEnd = count - remainder
        var bad: UInt32 = 0
        while index < fullEnd {
            // The highest index first: its check covers the three below it.
            let group = t3[Int(input[index + 3])] | t2[Int(input[index + 2])] | t1[Int(input[index + 1])] | t0[Int(input[index])]
            bad |= group
            output[written + 2] = UInt8(truncatingIfNeeded: group)
            output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
            output[written] = UInt8(truncatingIfNeeded: group >> 16)
            index += 4
            written += 3
        }
        if remainder == 2 {
            let group = t1[Int(input[index + 1])] | t0[Int(input[index])]
            // Canonical: the 4 unused low bits of the last character are zero.
            bad |= group | (group & 0xF000 != 0 ? 0x8000_0000 : 0)
            output[written] = UInt8(truncatingIfNeeded: group >> 16)
        } else if remainder == 3 {
            let group = t2[Int(input[index + 2])] | t1[Int(input[index + 1])] | t0[Int(input[index])]
            // Canonical: the 2 unused low bits of the last character are zero.
            bad |= group | (group & 0x00C0 != 0 ? 0x8000_0000 : 0)
            output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
            output[written] = UInt8(truncatingIfNeeded: group >> 16)
        }
        return bad & 0x8000_0000 == 0
    }

    /// Decodes the UTF-8 bytes of `text` strictly.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let copy = String(text)
        return decode(copy.utf8.span)
    }
}
