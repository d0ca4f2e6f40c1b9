// Unsafe (at the OpenSSL boundary and in the DER reader): the DER bytes are borrowed for the parse,
// every read is checked against `bytes.count` first, and OpenSSL is given buffers with their lengths.

/// An ECDSA P-256 signature (r, s), each held as 32 big-endian bytes.
///
/// Converts between the two wire forms: IEEE P1363 `r || s` (JWS ES256, RFC 7518 §3.4) and
/// DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` (RFC 3279 §2.2.3), which is what
/// OpenSSL signs and verifies. Both parsers are strict, and both refuse r or s outside
/// [1, n − 1], which is what stops the all-zero "psychic signature" (CVE-2022-21449).
struct ECDSASignature {
    static let scalarByteCount = 32

    /// The order n of the P-256 base point (SEC 2 v2 §2.4.2).
    static let p256Order: [UInt8] = [
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
    ]

    let r: [UInt8]
    let s: [UInt8]

    /// From `r || s`: exactly 64 bytes with both halves in [1, n − 1].
    init?(rawRS: UnsafeRawBufferPointer) {
        guard rawRS.count == 2 * Self.scalarByteCount else { return nil }
        let r = unsafe Array(rawRS[0..<Self.scalarByteCount])
        let s = unsafe Array(rawRS[Self.scalarByteCount...])
        guard Self.isInRange(r), Self.isInRange(s) else { return nil }
        self.r = r
        self.s = s
    }

    /// From strict DER: short-form lengths only (the structure is under 128 bytes), minimal
    /// non-negative INTEGERs, nothing after the SEQUENCE, and both values in [1, n − 1].
    init?(der: UnsafeRawBufferPointer) {
        var reader = unsafe Reader(bytes: der)
        guard let sequence = unsafe reader.element(tag: 0x30), reader.isAtEnd else { return nil }
        var inner = unsafe Reader(bytes: sequence)
        guard let r = inner.unsignedInteger(), let s = inner.unsignedInteger(), inner.isAtEnd else { return nil }
        guard Self.isInRange(r), Self.isInRange(s) else { return nil }
        self.r = r
        self.s = s
    }

    /// `r || s`, 64 bytes.
    var rawRS: [UInt8] { r + s }

    /// The DER encoding.
    var der: [UInt8] { DER.sequence(DER.unsignedInteger(r), DER.unsignedInteger(s)) }

    /// Whether the 32-byte big-endian `value` is in [1, n − 1].
    private static func isInRange(_ value: [UInt8]) -> Bool {
        guard value.contains(where: { $0 != 0 }) else { return false }
        return value.lexicographicallyPrecedes(p256Order)
    }

    @safe
    private struct Reader {
        // @safe: made only inside `withUnsafeBytes` over the DER input and dropped before it returns;
        // every read is checked against `bytes.count`.
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var isAtEnd: Bool { unsafe offset == bytes.count }

        /// The contents of the next element with `tag`, which must use a short-form length.
        mutating func element(tag: UInt8) -> UnsafeRawBufferPointer? {
            guard unsafe bytes.count - offset >= 2, unsafe bytes[offset] == tag else { return nil }
            let length = unsafe Int(bytes[offset + 1])
            guard length < 0x80, unsafe bytes.count - offset - 2 >= length else { return nil }
            let start = offset + 2
            offset = start + length
            return unsafe UnsafeRawBufferPointer(rebasing: bytes[start..<start + length])
        }

        /// The next INTEGER as a 32-byte big-endian magnitude; nil if negative, non-minimal,
        /// empty or wider than 32 bytes.
        mutating func unsignedInteger() -> [UInt8]? {
            guard let contents = unsafe element(tag: 0x02), unsafe !contents.isEmpty else { return nil }
            if unsafe contents[0] & 0x80 != 0 { return nil }
            var magnitude = unsafe contents[...]
            if unsafe contents[0] == 0 {
                guard contents.count > 1, unsafe contents[1] & 0x80 != 0 else { return nil }
                unsafe magnitude = contents[1...]
            }
            guard unsafe magnitude.count <= ECDSASignature.scalarByteCount else { return nil }
            return unsafe [UInt8](repeating: 0, count: ECDSASignature.scalarByteCount - magnitude.count) + magnitude
        }
    }
}
