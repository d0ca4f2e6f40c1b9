// One pass over the raw field ranges of a completed head that finds what framing, Host and
// Connection rules need, comparing bytes so no String is built for the decision.

// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

struct FieldSummary {
    enum Name: UInt8 {
        case other, host, authorization, contentLength, transferEncoding, connection
    }

    var hostCount = 0
    var hostIndex = 0
    var authorizationCount = 0
    var contentLengthCount = 0
    var contentLengthIndex = 0
    var transferEncodingCount = 0
    var listsClose = false
    var listsKeepAlive = false

    init(_ bytes: UnsafePointer<UInt8>, _ fields: FieldList) {
        for (index, field) in fields.enumerated() {
            switch unsafe Self.name(bytes + field.nameStart, count: field.nameEnd - field.nameStart) {
            case .other:
                break
            case .host:
                hostCount += 1
                hostIndex = index
            case .authorization:
                authorizationCount += 1
            case .contentLength:
                contentLengthCount += 1
                contentLengthIndex = index
            case .transferEncoding:
                transferEncodingCount += 1
            case .connection:
                unsafe ListElements.forEach(in: Self.value(bytes, field)) { element in
                    if unsafe ListElements.equalsIgnoringCase(element, "close") { listsClose = true }
                    if unsafe ListElements.equalsIgnoringCase(element, "keep-alive") { listsKeepAlive = true }
                    return true
                }
            }
        }
    }

    /// RFC 9112 §9.3, the same rule as `HTTPRequestHead.isKeepAlive`.
    func isKeepAlive(_ version: HTTPVersion) -> Bool {
        if listsClose { return false }
        return version.hasHTTP11Semantics || listsKeepAlive
    }

    static func value(_ bytes: UnsafePointer<UInt8>, _ field: FieldRange) -> UnsafeBufferPointer<UInt8> {
        unsafe UnsafeBufferPointer(start: bytes + field.valueStart, count: field.valueEnd - field.valueStart)
    }

    /// Which framing-relevant field a (token) name is; the length test settles most names.
    static func name(_ name: UnsafePointer<UInt8>, count: Int) -> Name {
        switch count {
        case 4: unsafe equals(name, "host", count) ? .host : .other
        case 10: unsafe equals(name, "connection", count) ? .connection : .other
        case 13: unsafe equals(name, "authorization", count) ? .authorization : .other
        case 14: unsafe equals(name, "content-length", count) ? .contentLength : .other
        case 17: unsafe equals(name, "transfer-encoding", count) ? .transferEncoding : .other
        default: .other
        }
    }

    @inline(__always)
    private static func equals(_ name: UnsafePointer<UInt8>, _ lowercase: StaticString, _ count: Int) -> Bool {
        let literal = unsafe lowercase.utf8Start
        for index in 0..<count where unsafe ByteClass.lowercased(name[index]) != literal[index] { return false }
        return true
    }
}
