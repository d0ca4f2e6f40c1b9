// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

/// A fixed set of field names and name prefixes, for fields a proxy removes from every request it
/// forwards.
///
/// A pattern ending in `-` is a prefix (`X-AppNative-` matches `X-AppNative-User-Id`); any other
/// pattern is a name that also matches when extended with `-…` (`X-Remote-User` matches
/// `X-Remote-User-Id`, never `X-Remote-Username`). Names compare ASCII-case-insensitively with `_`
/// read as `-`, because some servers turn `X_Remote_User` into the same CGI variable as
/// `X-Remote-User` (field names are tokens, so ASCII).
public struct FieldNamePatterns: Sendable {
    /// One pattern in `bytes`. A trivial struct, so the per-field scan does no reference
    /// counting (an array of arrays retains and releases each pattern it visits).
    private struct Pattern: Sendable {
        let start: Int
        let count: Int
        let isPrefix: Bool
    }

    /// The patterns as given, for documentation and tests.
    public let names: [String]
    /// Every pattern lower-cased, back to back.
    private let bytes: [UInt8]
    /// The patterns grouped by their first byte: a field is compared only with the patterns that
    /// start like it (most of the 256 lists are empty).
    private let byFirstByte: [[Pattern]]

    /// - Parameter names: field names (tokens, RFC 9110 §5.6.2), each a prefix when it ends in `-`.
    ///   They come from code: an empty name or one that is not a token stops the process.
    public init(_ names: [String]) {
        var bytes: [UInt8] = []
        var byFirstByte = [[Pattern]](repeating: [], count: 256)
        for name in names {
            precondition(HTTPHeaders.isValidFieldName(name), "FieldNamePatterns: \(name) is not a field name")
            let lowered = name.utf8.map(Self.normalized)
            byFirstByte[Int(lowered[0])].append(Pattern(start: bytes.count, count: lowered.count, isPrefix: name.hasSuffix("-")))
            bytes += lowered
        }
        self.names = names
        self.bytes = bytes
        self.byFirstByte = byFirstByte
    }

    /// Whether `name` is one of the patterns (or starts like a prefix).
    public func matches(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { unsafe matches(bytes: $0) }
    }

    /// Removes every field of `headers` whose name matches, without building a `String` per field
    /// (this runs on every field of every forwarded request).
    public func remove(from headers: inout HTTPHeaders) {
        guard !names.isEmpty else { return }
        unsafe headers.removeAll(whereName: matches(bytes:))
    }

    /// `matches` on a field name's bytes, compared byte by byte after normalising.
    func matches(bytes name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let firstByte = unsafe name.first else { return false }
        return unsafe byFirstByte[Int(Self.normalized(firstByte))].withUnsafeBufferPointer { patterns in
            unsafe bytes.withUnsafeBufferPointer { bytes in
                for unsafe pattern in unsafe patterns where name.count >= pattern.count {
                    var isEqual = true
                    for index in 1..<pattern.count where unsafe Self.normalized(name[index]) != bytes[pattern.start + index] {
                        isEqual = false
                        break
                    }
                    guard isEqual else { continue }
                    // A prefix matches as it is; a name also when extended with `-…`.
                    if unsafe pattern.isPrefix || name.count == pattern.count || Self.normalized(name[pattern.count]) == UInt8(ascii: "-") {
                        return true
                    }
                }
                return false
            }
        }
    }

    /// ASCII lower case, with `_` read as `-`.
    @inline(__always)
    private static func normalized(_ byte: UInt8) -> UInt8 {
        if byte == UInt8(ascii: "_") { return UInt8(ascii: "-") }
        return byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }
}
