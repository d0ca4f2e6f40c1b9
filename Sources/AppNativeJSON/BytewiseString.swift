// Unsafe: bytes are read inside the contiguous storage lent for the call (the 8-byte loads are at
// offsets 0 and count - 8 of a name of at least 8 bytes).

/// A string hashed and compared by its UTF-8 bytes, never by canonical equivalence.
struct BytewiseString: Hashable {
    let string: String

    init(_ string: String) {
        self.string = string
    }

    static func == (lhs: BytewiseString, rhs: BytewiseString) -> Bool {
        same(lhs.string, rhs.string)
    }

    func hash(into hasher: inout Hasher) {
        let bytes = string.utf8
        let hashed: Void? = unsafe bytes.withContiguousStorageIfAvailable { unsafe hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            unsafe Array(bytes).withUnsafeBytes { unsafe hasher.combine(bytes: $0) }
        }
        // The length ends the string, so a string followed by other hashed data stays unambiguous.
        hasher.combine(bytes.count)
    }

    /// Whether two strings hold the same Unicode scalars.
    @inline(__always)
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        // Equal bytes imply canonical equivalence, so `==` (a few integer compares for short ASCII
        // strings) rules out almost every mismatch; the byte comparison only confirms a match.
        let left = lhs.utf8, right = rhs.utf8
        guard left.count == right.count else { return false }
        // Native strings (and small ones) expose their UTF-8 directly: one byte loop, no
        // normalisation and no generic iteration.
        let compared: Bool?? = unsafe left.withContiguousStorageIfAvailable { l in
            unsafe right.withContiguousStorageIfAvailable { r in
                for index in 0..<l.count where unsafe l[index] != r[index] { return false }
                return true
            }
        }
        if case let result?? = compared { return result }
        guard lhs == rhs else { return false }
        return left.elementsEqual(right)
    }
}
