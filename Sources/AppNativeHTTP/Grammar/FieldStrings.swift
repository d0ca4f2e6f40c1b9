// Message strings are built once per completed head, from bytes the scanner already validated.
// Field strings are built later, only when a field is read (see HTTPHeaders).

enum FieldStrings {
    static func headers(_ bytes: UnsafePointer<UInt8>, _ fields: FieldList) -> HTTPHeaders {
        HTTPHeaders(scanned: bytes, fields)
    }

    static func ascii(_ bytes: UnsafePointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(start: bytes + range.lowerBound, count: range.count), as: UTF8.self)
    }
}
