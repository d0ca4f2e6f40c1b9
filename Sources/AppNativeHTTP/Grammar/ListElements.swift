// RFC 9110 §5.6.1 lists: elements separated by commas with optional whitespace; recipients
// ignore empty elements. Connection and Transfer-Encoding are read with these helpers.

enum ListElements {
    /// Calls `body` with each non-empty element of `value`, trimmed of OWS, until it returns false.
    static func forEach(in value: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        let handled: Void? = value.utf8.withContiguousStorageIfAvailable { forEach(in: $0, body) }
        if handled == nil {
            Array(value.utf8).withUnsafeBufferPointer { forEach(in: $0, body) }
        }
    }

    /// Calls `body` with each non-empty element of `bytes`, trimmed of OWS, until it returns false.
    static func forEach(in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != ASCII.comma { end += 1 }
            var first = start
            var last = end
            while first < last && ByteClass.isWhitespace(bytes[first]) { first += 1 }
            while last > first && ByteClass.isWhitespace(bytes[last - 1]) { last -= 1 }
            if first < last {
                let element = UnsafeBufferPointer(rebasing: bytes[first..<last])
                if !body(element) { return }
            }
            start = end + 1
        }
    }

    /// Whether `element` equals the ASCII `token` ignoring case.
    static func equalsIgnoringCase(_ element: UnsafeBufferPointer<UInt8>, _ token: String) -> Bool {
        var index = 0
        for byte in token.utf8 {
            guard index < element.count, ByteClass.lowercased(element[index]) == ByteClass.lowercased(byte) else {
                return false
            }
            index += 1
        }
        return index == element.count
    }
}
