// RFC 9110 §5.6.1 lists: elements separated by commas with optional whitespace; recipients
// ignore empty elements. Connection and Transfer-Encoding are read with these helpers.

// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

enum ListElements {
    /// Calls `body` with each non-empty element of `value`, trimmed of OWS, until it returns false.
    static func forEach(in value: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        let handled: Void? = unsafe value.utf8.withContiguousStorageIfAvailable { unsafe forEach(in: $0, body) }
        if handled == nil {
            unsafe Array(value.utf8).withUnsafeBufferPointer { unsafe forEach(in: $0, body) }
        }
    }

    /// Calls `body` with each non-empty element of `bytes`, trimmed of OWS, until it returns false.
    static func forEach(in bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        var start = 0
        while start <= bytes.count {
            var end = start
            while unsafe end < bytes.count && bytes[end] != ASCII.comma { end += 1 }
            var first = start
            var last = end
            while unsafe first < last && ByteClass.isWhitespace(bytes[first]) { first += 1 }
            while unsafe last > first && ByteClass.isWhitespace(bytes[last - 1]) { last -= 1 }
            if first < last {
                let element = unsafe UnsafeBufferPointer(rebasing: bytes[first..<last])
                if unsafe !body(element) { return }
            }
            start = end + 1
        }
    }

    /// Whether `element` equals the ASCII `token` ignoring case.
    static func equalsIgnoringCase(_ element: UnsafeBufferPointer<UInt8>, _ token: String) -> Bool {
        var index = 0
        for byte in token.utf8 {
            guard index < element.count, unsafe ByteClass.lowercased(element[index]) == ByteClass.lowercased(byte) else {
                return false
            }
            index += 1
        }
        return index == element.count
    }
}
