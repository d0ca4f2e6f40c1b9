// Unsafe: bytes are read inside the contiguous storage lent for the call (the 8-byte loads are at
// offsets 0 and count - 8 of a name of at least 8 bytes).

/// A member name's length and first and last eight bytes. Equal prints mean equal names for
/// names up to 16 bytes, and are a cheap pre-check for longer ones, so duplicate checks in
/// small objects compare two or three integers instead of strings.
struct NamePrint: Equatable {
    let count: Int
    let head: UInt64
    let tail: UInt64

    @inline(__always)
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        count = bytes.count
        if count >= 8, let base = bytes.baseAddress {
            head = unsafe UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)
            tail = unsafe UnsafeRawPointer(base + (count - 8)).loadUnaligned(as: UInt64.self)
        } else {
            var packed: UInt64 = 0
            for position in 0..<count {
                unsafe packed |= UInt64(bytes[position]) << (8 * position)
            }
            head = packed
            tail = 0
        }
    }

    /// Whether head and tail cover every byte, making equal prints equal names.
    var isWholeName: Bool { count <= 16 }
}

/// The names seen so far in one object, as 128 bits (one per name, chosen by a hash of its
/// print). A name whose bit is still clear is certainly new, so a small object's duplicate check
/// compares prints only after a bit collision instead of for every pair of members.
struct NameFilter {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// Records `print`; `true` when a name with the same bit was recorded before (possibly this one).
    @inline(__always)
    mutating func insert(_ print: NamePrint) -> Bool {
        let mixed = (print.head ^ (print.tail &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(truncatingIfNeeded: print.count))
            &* 0xFF51_AFD7_ED55_8CCD
        let bit: UInt64 = 1 << ((mixed >> 57) & 63)
        if mixed >> 63 == 0 {
            defer { low |= bit }
            return low & bit != 0
        }
        defer { high |= bit }
        return high & bit != 0
    }
}
