// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

/// A W3C Trace Context `tracestate` (https://www.w3.org/TR/trace-context/ §3.3): vendors'
/// `key=value` list-members, passed on unchanged in order when valid and within bounds.
///
/// Every `tracestate` field of a request is one list (§3.3.1, fields combined with commas).
/// A list that breaks the grammar, repeats a key or has more than 32 members is dropped whole
/// (§3.3.1.1 lets a vendor discard what it cannot parse). A valid list longer than
/// `maxLength` characters loses its members longer than 128 characters first, then members
/// from the end, until it fits (§3.3.1.5 "Limits").
public enum TraceState: Sendable {
    public static let header = "tracestate"
    /// At most this many list-members (§3.3.1.3.1).
    public static let maxMembers = 32
    /// The combined length passed on; §3.3.1.5 asks vendors to propagate at least 512.
    public static let maxLength = 512
    /// Members longer than this go first when the list must be shortened (§3.3.1.5).
    static let longMemberLength = 128

    /// The list to pass on for `headers`, or `nil` when there is none or it is invalid.
    public static func normalized(from headers: HTTPHeaders) -> String? {
        var combined = [UInt8]()
        var present = false
        unsafe headers.forEachValueBytes(header) { value, _ in
            if present { combined.append(UInt8(ascii: ",")) }
            present = true
            unsafe combined.append(contentsOf: value)
            return true
        }
        guard present else { return nil }
        return normalized(combined)
    }

    /// The list-members of one combined value, validated and bounded, joined by `,`; `nil` when
    /// the value is invalid or holds no member.
    public static func normalized(_ value: some Collection<UInt8>) -> String? {
        guard let members = members(of: value), !members.isEmpty else { return nil }
        let bounded = bound(members)
        guard !bounded.isEmpty else { return nil }
        return bounded.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",")
    }

    /// The non-empty list-members of `value` (OWS around each removed), or `nil` when one breaks
    /// the grammar, a key repeats, or there are more than `maxMembers`.
    static func members(of value: some Collection<UInt8>) -> [[UInt8]]? {
        var members = [[UInt8]]()
        var keys = Set<[UInt8]>()
        for raw in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let member = trimmingOWS(Array(raw))
            // Empty and whitespace-only members are allowed and carry nothing (§3.3.1.1).
            if member.isEmpty { continue }
            guard let equals = member.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let key = Array(member[..<equals])
            let memberValue = member[(equals + 1)...]
            guard isValidKey(key), isValidValue(memberValue), keys.insert(key).inserted else { return nil }
            members.append(member)
            guard members.count <= maxMembers else { return nil }
        }
        return members
    }

    /// Drops members until the joined list is at most `maxLength` characters: those longer than
    /// `longMemberLength` first, then from the end.
    static func bound(_ members: [[UInt8]]) -> [[UInt8]] {
        func length(_ list: [[UInt8]]) -> Int { list.reduce(0) { $0 + $1.count } + max(0, list.count - 1) }
        var kept = members
        guard length(kept) > maxLength else { return kept }
        while length(kept) > maxLength, let long = kept.lastIndex(where: { $0.count > longMemberLength }) {
            kept.remove(at: long)
        }
        while length(kept) > maxLength { kept.removeLast() }
        return kept
    }

    /// key = simple-key / multi-tenant-key (§3.3.1.3.1):
    /// simple-key = lcalpha 0*255( lcalpha / DIGIT / "_" / "-" / "*" / "/" )
    /// multi-tenant-key = tenant-id "@" system-id
    /// tenant-id = ( lcalpha / DIGIT ) 0*240( lcalpha / DIGIT / "_" / "-" / "*" / "/" )
    /// system-id = lcalpha 0*13( lcalpha / DIGIT / "_" / "-" / "*" / "/" )
    static func isValidKey(_ key: [UInt8]) -> Bool {
        guard let at = key.firstIndex(of: UInt8(ascii: "@")) else {
            return (1...256).contains(key.count) && isLowerAlpha(key[0]) && key.dropFirst().allSatisfy(isKeyCharacter)
        }
        let tenant = key[..<at]
        let system = key[(at + 1)...]
        guard (1...241).contains(tenant.count), (1...14).contains(system.count) else { return false }
        guard let tenantFirst = tenant.first, isLowerAlpha(tenantFirst) || isDigit(tenantFirst),
            tenant.dropFirst().allSatisfy(isKeyCharacter)
        else { return false }
        guard let systemFirst = system.first, isLowerAlpha(systemFirst) else { return false }
        return system.dropFirst().allSatisfy(isKeyCharacter)
    }

    /// value = 0*255(chr) nblk-chr; nblk-chr = %x21-2B / %x2D-3C / %x3E-7E; chr = %x20 / nblk-chr
    /// (§3.3.1.3.2).
    static func isValidValue(_ value: ArraySlice<UInt8>) -> Bool {
        guard (1...256).contains(value.count), let last = value.last, isNonBlankValueCharacter(last) else { return false }
        return value.allSatisfy { $0 == 0x20 || isNonBlankValueCharacter($0) }
    }

    private static func isNonBlankValueCharacter(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte) && byte != UInt8(ascii: ",") && byte != UInt8(ascii: "=")
    }

    private static func isLowerAlpha(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isKeyCharacter(_ byte: UInt8) -> Bool {
        isLowerAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "/")
    }

    /// OWS = *( SP / HTAB ) around a list-member (§3.3.1.2).
    private static func trimmingOWS(_ bytes: [UInt8]) -> [UInt8] {
        var slice = bytes[...]
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return Array(slice)
    }
}
