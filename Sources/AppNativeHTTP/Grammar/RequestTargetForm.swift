// RFC 9112 §3.2: request-target = origin-form / absolute-form / authority-form / asterisk-form.
// - origin-form   = absolute-path [ "?" query ]            (any method)
// - absolute-form = absolute-URI                           (any method; http and https only here)
// - authority-form = uri-host ":" port                     (CONNECT only, which is refused)
// - asterisk-form = "*"                                    (OPTIONS only)
// Anything else, such as a relative `index.html`, is a 400.

// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

enum RequestTargetForm: Equatable {
    case origin
    /// `authority` and `pathAndQuery` are index ranges into the target.
    case absolute(authority: Range<Int>, pathAndQuery: Range<Int>)
    case asterisk

    /// Classifies a target whose bytes already passed `ByteClass.isTargetByte`.
    static func classify(_ target: UnsafeBufferPointer<UInt8>, method: String) throws(HTTPParseError) -> RequestTargetForm {
        guard let first = unsafe target.first else {
            throw HTTPParseError(.invalidRequestLine, reason: "empty request target")
        }
        if first == ASCII.slash { return .origin }
        if first == ASCII.asterisk && target.count == 1 {
            guard method == "OPTIONS" else {
                throw HTTPParseError(.invalidTarget, reason: "asterisk-form target with a method other than OPTIONS")
            }
            return .asterisk
        }
        let schemeLength: Int
        if unsafe hasPrefix(target, "http://") {
            schemeLength = 7
        } else if unsafe hasPrefix(target, "https://") {
            schemeLength = 8
        } else {
            throw HTTPParseError(.invalidTarget, reason: "request target is neither origin-form nor an http(s) absolute-form")
        }
        var authorityEnd = schemeLength
        while unsafe authorityEnd < target.count && target[authorityEnd] != ASCII.slash
            && target[authorityEnd] != UInt8(ascii: "?")
        {
            authorityEnd += 1
        }
        let authority = unsafe UnsafeBufferPointer(rebasing: target[schemeLength..<authorityEnd])
        guard unsafe HostSyntax.isValid(authority.span) else {
            throw HTTPParseError(.invalidHost, reason: "absolute-form target has an empty or invalid authority")
        }
        return .absolute(authority: schemeLength..<authorityEnd, pathAndQuery: authorityEnd..<target.count)
    }

    /// Whether `bytes` starts with the lower-case ASCII `prefix`, ignoring case (schemes are
    /// case-insensitive, RFC 3986 §3.1).
    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        for index in 0..<prefix.utf8CodeUnitCount where unsafe ByteClass.lowercased(bytes[index]) != prefix.utf8Start[index] {
            return false
        }
        return true
    }
}
