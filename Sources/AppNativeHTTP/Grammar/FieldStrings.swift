// Message strings are built once per completed head, from bytes the scanner already validated.
// Field strings are built later, only when a field is read (see HTTPHeaders).

// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

enum FieldStrings {
    static func headers(_ bytes: UnsafePointer<UInt8>, _ fields: FieldList) -> HTTPHeaders {
        unsafe HTTPHeaders(scanned: bytes, fields)
    }

    static func ascii(_ bytes: UnsafePointer<UInt8>, _ range: Range<Int>) -> String {
        unsafe String(decoding: UnsafeBufferPointer(start: bytes + range.lowerBound, count: range.count), as: UTF8.self)
    }
}
