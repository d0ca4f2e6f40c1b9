/// Byte rules and encodings shared by the sign-in's URLs and cookies.
enum SignInText {
    /// RFC 3986 §2.3 unreserved characters.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Percent-encodes every byte outside the unreserved set (a query parameter's name or value).
    static func percentEncoded(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `application/x-www-form-urlencoded` text (`+` is a space); `nil` for a broken
    /// escape or bytes that are not UTF-8.
    static func formDecoded(_ text: Substring) -> String? {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                out.append(high << 4 | low)
            default:
                out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The query of a request target, split into decoded name/value pairs; `nil` when a part does
    /// not decode.
    static func queryPairs(ofTarget target: String) -> [(name: String, value: String)]? {
        guard let mark = target.firstIndex(of: "?") else { return [] }
        var query = target[target.index(after: mark)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        var pairs = [(name: String, value: String)]()
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = formDecoded(pieces[0]) else { return nil }
            let value = pieces.count > 1 ? formDecoded(pieces[1]) : ""
            guard let value else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }
}
