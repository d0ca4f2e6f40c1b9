// The gateway's method allow-list (RFC 9110 §9.1: methods are case-sensitive tokens; a server
// answers 501 to a method it does not implement).
//
// Excluded on purpose:
// - CONNECT: a reverse proxy must not open tunnels to arbitrary authorities.
// - TRACE: it echoes the request, including the identity fields the gateway injects, back to
//   whoever can make the client send it (cross-site tracing).
// - lower-case spellings: `get` is a different, unknown method; upper-casing it would forward
//   something the client did not send.

// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

enum AllowedMethod {
    static let names = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    /// The allow-listed method spelled by `bytes[0..<count]`, as a constant string (no
    /// allocation), or nil.
    @inline(__always)
    static func match(_ bytes: UnsafePointer<UInt8>, count: Int) -> String? {
        switch count {
        case 3:
            if unsafe equals(bytes, "GET") { return "GET" }
            if unsafe equals(bytes, "PUT") { return "PUT" }
        case 4:
            if unsafe equals(bytes, "POST") { return "POST" }
            if unsafe equals(bytes, "HEAD") { return "HEAD" }
        case 5:
            if unsafe equals(bytes, "PATCH") { return "PATCH" }
        case 6:
            if unsafe equals(bytes, "DELETE") { return "DELETE" }
        case 7:
            if unsafe equals(bytes, "OPTIONS") { return "OPTIONS" }
        default:
            break
        }
        return nil
    }

    /// Registered methods no resource here allows: 405 rather than 501 (the method exists).
    /// TRACE (cross-site tracing) and QUERY (a safe method with a body; nothing here serves it).
    static func isRefused(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        unsafe count == 5 && (equals(bytes, "TRACE") || equals(bytes, "QUERY"))
    }

    /// `PRI`: the method of the HTTP/2 connection preface (RFC 9113 §3.4). A listener that speaks
    /// only HTTP/1.1 answers it as a version it does not support (505), not as an unknown method.
    static func isHTTP2Preface(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        unsafe count == 3 && equals(bytes, "PRI")
    }

    @inline(__always)
    private static func equals(_ bytes: UnsafePointer<UInt8>, _ literal: StaticString) -> Bool {
        let literalBytes = unsafe literal.utf8Start
        for index in 0..<literal.utf8CodeUnitCount where unsafe bytes[index] != literalBytes[index] { return false }
        return true
    }
}
