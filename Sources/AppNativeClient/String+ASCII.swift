extension String {
    /// ASCII case-insensitive comparison, the rule for field names and schemes.
    func isEqualIgnoringASCIICase(_ other: String) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
    }
}

/// Lower-cases an ASCII letter byte and leaves every other byte alone.
func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
}
