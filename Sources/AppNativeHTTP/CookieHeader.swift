internal import Glibc

// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

/// Reading and rewriting `Cookie` request header values (RFC 6265 §4.2, §5.4).
///
/// One scanner serves both, so the cookie the gateway reads as its session is exactly the one
/// it removes before the request goes upstream. Pairs are separated by `;`; names and values are
/// trimmed of SP and HTAB at both ends (as the reference's cookie parser strips them); names are
/// compared byte for byte. Scans UTF-8 bytes with `memchr`: this runs on every cookie request,
/// and the session value is a few hundred bytes long.
public enum CookieHeader: Sendable {
    /// The values of every cookie called `name`, in order, across all `Cookie` header values.
    /// A value in double quotes (RFC 6265 §4.1.1) is returned without them.
    public static func values(named name: String, in headers: [String]) -> [String] {
        var found = [String]()
        for header in headers {
            var header = header
            header.withUTF8 { bytes in
                unsafe forEachValue(named: name, in: bytes) { value in
                    unsafe found.append(String(decoding: value, as: UTF8.self))
                    return true
                }
            }
        }
        return found
    }

    /// Calls `body` with the bytes of each cookie called `name` in one `Cookie` field value, in
    /// order, until it returns false; the same values `values(named:in:)` reads, without a
    /// `String` for the field or the value. Not generic on purpose (called across modules).
    public static func forEachValue(
        named name: String, in field: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Bool
    ) {
        var goesOn = true
        unsafe forEachPair(in: field) { bytes, pair in
            guard goesOn, let equals = pair.equals, unsafe pair.hasName(name, in: bytes) else { return }
            var valueStart = equals + 1
            var valueEnd = pair.end
            while valueStart < valueEnd, unsafe isSpace(bytes[valueStart]) { valueStart += 1 }
            while valueEnd > valueStart, unsafe isSpace(bytes[valueEnd - 1]) { valueEnd -= 1 }
            if valueEnd - valueStart >= 2, unsafe bytes[valueStart] == UInt8(ascii: "\""),
                unsafe bytes[valueEnd - 1] == UInt8(ascii: "\"")
            {
                valueStart += 1
                valueEnd -= 1
            }
            goesOn = unsafe body(UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd]))
        }
    }

    /// `header` without every cookie called `name`, the other pairs joined by `; `; `nil` when
    /// nothing is left. A pair without `=` is kept as it is.
    public static func removing(_ name: String, from header: String) -> String? {
        var kept = [UInt8]()
        var header = header
        header.withUTF8 { _ = unsafe appendRemaining(of: $0, removing: name, to: &kept) }
        return kept.isEmpty ? nil : String(decoding: kept, as: UTF8.self)
    }

    /// `removing(_:from:)` that also removes every cookie whose name starts with one of `prefixes`.
    public static func removing(_ name: String?, orNamesStartingWith prefixes: [String], from header: String) -> String? {
        var kept = [UInt8]()
        var header = header
        header.withUTF8 { _ = unsafe appendRemaining(of: $0, removing: name, orNamesStartingWith: prefixes, to: &kept) }
        return kept.isEmpty ? nil : String(decoding: kept, as: UTF8.self)
    }

    /// `removing(_:from:)` on one field's bytes, appending what is kept to `kept` (after `; ` when
    /// `kept` is not empty), so several `Cookie` fields join into one value without a `String`.
    /// Returns whether a cookie called `name` was there.
    @discardableResult
    public static func appendRemaining(of field: UnsafeBufferPointer<UInt8>, removing name: String, to kept: inout [UInt8]) -> Bool {
        unsafe appendRemaining(of: field, removing: name, orNamesStartingWith: [], to: &kept)
    }

    /// `appendRemaining(of:removing:to:)` that also removes every cookie whose name starts with one
    /// of `prefixes` (a family of cookies named per use, like the sign-in's per-attempt cookies).
    /// Returns whether anything was removed.
    @discardableResult
    public static func appendRemaining(
        of field: UnsafeBufferPointer<UInt8>, removing name: String?, orNamesStartingWith prefixes: [String], to kept: inout [UInt8]
    ) -> Bool {
        var removed = false
        unsafe forEachPair(in: field) { bytes, pair in
            if pair.equals != nil,
                (name.map { unsafe pair.hasName($0, in: bytes) } ?? false) || prefixes.contains(where: { unsafe pair.hasName($0, in: bytes, prefixOnly: true) })
            {
                removed = true
                return
            }
            if kept.isEmpty {
                kept.reserveCapacity(bytes.count)
            } else {
                kept.append(UInt8(ascii: ";"))
                kept.append(UInt8(ascii: " "))
            }
            unsafe kept.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[pair.start..<pair.end]))
        }
        return removed
    }

    /// One non-empty `name=value` (or bare) element, trimmed of SP and HTAB at both ends.
    private struct Pair {
        var start: Int
        var end: Int
        /// The offset of the first `=`, if any.
        var equals: Int?

        /// Whether the name (before `=`, trimmed) is exactly `name`'s bytes, or with `prefixOnly`
        /// starts with them.
        func hasName(_ name: String, in bytes: UnsafeBufferPointer<UInt8>, prefixOnly: Bool = false) -> Bool {
            guard let equals else { return false }
            var nameEnd = equals
            while nameEnd > start, unsafe CookieHeader.isSpace(bytes[nameEnd - 1]) { nameEnd -= 1 }
            let utf8 = name.utf8
            guard prefixOnly ? nameEnd - start >= utf8.count : nameEnd - start == utf8.count else { return false }
            var offset = start
            for byte in utf8 {
                guard unsafe bytes[offset] == byte else { return false }
                offset += 1
            }
            return true
        }
    }

    private static func forEachPair(in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, Pair) -> Void) {
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        // The offset of the first `byte` in start..<end, or `end`.
        func find(_ byte: UInt8, from start: Int, to end: Int) -> Int {
            guard start < end, let hit = unsafe memchr(base + start, Int32(byte), end - start) else { return end }
            return unsafe base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
        var index = 0
        while index < count {
            var start = index
            let separator = find(UInt8(ascii: ";"), from: index, to: count)
            index = separator + 1
            var end = separator
            while start < end, unsafe isSpace(bytes[start]) { start += 1 }
            while end > start, unsafe isSpace(bytes[end - 1]) { end -= 1 }
            guard start < end else { continue }
            let equals = find(UInt8(ascii: "="), from: start, to: end)
            unsafe body(bytes, Pair(start: start, end: end, equals: equals < end ? equals : nil))
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
