import Foundation

/// Removing one cookie from a `Cookie` header value (RFC 6265 §5.4), so the gateway's own
/// session cookie never reaches the upstream.
enum CookieJar {
    static func removing(_ name: String, from header: String) -> String? {
        if let result = asciiRemoving(name, from: header) { return result }
        let kept = header.split(separator: ";").filter { pair in
            let trimmed = pair.drop(while: { $0 == " " || $0 == "\t" })
            guard let equals = trimmed.firstIndex(of: "=") else { return true }
            return trimmed[..<equals].trimmingCharacters(in: .whitespaces) != name
        }
        let joined = kept.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
        return joined.isEmpty ? nil : joined
    }

    /// Same result for an ASCII header, scanning bytes; `nil` when a non-ASCII byte needs the
    /// general path (whose trimming knows Unicode spaces).
    private static func asciiRemoving(_ name: String, from header: String) -> String?? {
        var name = name, header = header
        return name.withUTF8 { target in
            header.withUTF8 { bytes -> String?? in
                for byte in bytes where byte >= 0x80 { return nil }
                let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
                var kept = [UInt8]()
                kept.reserveCapacity(bytes.count)
                var index = 0
                while index < bytes.count {
                    var end = index
                    while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
                    var start = index, stop = end
                    index = end + 1
                    while start < stop, isSpace(bytes[start]) { start += 1 }
                    while stop > start, isSpace(bytes[stop - 1]) { stop -= 1 }
                    if start == stop { continue }
                    if let equals = (start..<stop).first(where: { bytes[$0] == UInt8(ascii: "=") }) {
                        var nameEnd = equals
                        while nameEnd > start, isSpace(bytes[nameEnd - 1]) { nameEnd -= 1 }
                        if nameEnd - start == target.count, (0..<target.count).allSatisfy({ bytes[start + $0] == target[$0] }) { continue }
                    }
                    if !kept.isEmpty { kept.append(contentsOf: [UInt8(ascii: ";"), UInt8(ascii: " ")]) }
                    kept.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<stop]))
                }
                return .some(kept.isEmpty ? nil : String(decoding: kept, as: UTF8.self))
            }
        }
    }
}
