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
            head = UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)
            tail = UnsafeRawPointer(base + (count - 8)).loadUnaligned(as: UInt64.self)
        } else {
            var packed: UInt64 = 0
            for position in 0..<count {
                packed |= UInt64(bytes[position]) << (8 * position)
            }
            head = packed
            tail = 0
        }
    }

    /// Whether head and tail cover every byte, making equal prints equal names.
    var isWholeName: Bool { count <= 16 }
}
