import Foundation
import Glibc

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
                guard let base = bytes.baseAddress else { return .some(nil) }
                // ASCII check a word at a time: the header carries the ~400-byte session cookie.
                var high: UInt64 = 0
                var scanned = 0
                while bytes.count - scanned >= 8 {
                    high |= UnsafeRawPointer(base + scanned).loadUnaligned(as: UInt64.self)
                    scanned += 8
                }
                while scanned < bytes.count {
                    high |= UInt64(bytes[scanned])
                    scanned += 1
                }
                if high & 0x8080_8080_8080_8080 != 0 { return nil }
                let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
                // The offset of the first `byte` in start..<end, or `end` (memchr skips long values).
                func find(_ byte: UInt8, from start: Int, to end: Int) -> Int {
                    guard start < end, let hit = memchr(base + start, Int32(byte), end - start) else { return end }
                    return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                }
                var kept = [UInt8]()
                kept.reserveCapacity(bytes.count)
                var index = 0
                while index < bytes.count {
                    let end = find(UInt8(ascii: ";"), from: index, to: bytes.count)
                    var start = index, stop = end
                    index = end + 1
                    while start < stop, isSpace(bytes[start]) { start += 1 }
                    while stop > start, isSpace(bytes[stop - 1]) { stop -= 1 }
                    if start == stop { continue }
                    let equals = find(UInt8(ascii: "="), from: start, to: stop)
                    if equals < stop {
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
