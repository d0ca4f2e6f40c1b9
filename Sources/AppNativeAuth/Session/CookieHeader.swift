import Glibc

/// Parsing and rewriting of `Cookie` request headers (RFC 6265 §4.2, §5.4).
public enum CookieHeader: Sendable {
    /// The values of every cookie called `name`, in order, across all `Cookie` header values.
    ///
    /// Scans UTF-8 bytes: this runs on every cookie-authenticated request.
    public static func values(named name: String, in headers: [String]) -> [String] {
        var found = [String]()
        var name = name
        name.withUTF8 { nameBytes in
            for var header in headers {
                header.withUTF8 { bytes in
                    guard let base = bytes.baseAddress else { return }
                    // The offset of the first `byte` in start..<end, or `end` (memchr skips long values).
                    func find(_ byte: UInt8, from start: Int, to end: Int) -> Int {
                        guard start < end, let hit = memchr(base + start, Int32(byte), end - start) else { return end }
                        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    }
                    var index = 0
                    let count = bytes.count
                    while index < count {
                        // Skip separators and the optional space of "; ".
                        while index < count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t")
                            || bytes[index] == UInt8(ascii: ";")
                        {
                            index += 1
                        }
                        let pairStart = index
                        index = find(UInt8(ascii: ";"), from: index, to: count)
                        let pairEnd = index
                        let equals = find(UInt8(ascii: "="), from: pairStart, to: pairEnd)
                        guard equals < pairEnd else { continue }
                        var nameEnd = equals
                        while nameEnd > pairStart, bytes[nameEnd - 1] == UInt8(ascii: " ") || bytes[nameEnd - 1] == UInt8(ascii: "\t") {
                            nameEnd -= 1
                        }
                        guard nameEnd - pairStart == nameBytes.count,
                            (0..<nameBytes.count).allSatisfy({ bytes[pairStart + $0] == nameBytes[$0] })
                        else { continue }
                        var valueStart = equals + 1
                        var valueEnd = pairEnd
                        // Both ends trimmed, as the reference's cookie parser strips key and value.
                        while valueStart < valueEnd, bytes[valueStart] == UInt8(ascii: " ") || bytes[valueStart] == UInt8(ascii: "\t") {
                            valueStart += 1
                        }
                        while valueEnd > valueStart, bytes[valueEnd - 1] == UInt8(ascii: " ") || bytes[valueEnd - 1] == UInt8(ascii: "\t") {
                            valueEnd -= 1
                        }
                        // RFC 6265 §4.1.1 allows the value in double quotes.
                        if valueEnd - valueStart >= 2, bytes[valueStart] == UInt8(ascii: "\""), bytes[valueEnd - 1] == UInt8(ascii: "\"") {
                            valueStart += 1
                            valueEnd -= 1
                        }
                        found.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self))
                    }
                }
            }
        }
        return found
    }
}

extension Substring {
    fileprivate func trimmingTrailingSpaces() -> Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " || self[index(before: end)] == "\t" {
            end = index(before: end)
        }
        return self[startIndex..<end]
    }
}
