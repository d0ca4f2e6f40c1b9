// Unsafe: heads are written into arrays reserved for their exact serialised size, through
// HTTPHeaders' bounded writer.

/// Writes HTTP/1.1 heads and chunk framing into a byte buffer (RFC 9112).
///
/// Fields are written as `HTTPHeaders` holds them: names checked and values normalised when
/// they were inserted, so no value can end a line or inject a field. The reason phrase gets the
/// same treatment here. Methods, targets and status codes come from code or from a parser that
/// validated them; a malformed one is a programming error and stops the process.
///
/// Strings are ISO-8859-1 (see `HTTPHeaders`): scalars up to U+00FF are written as one byte,
/// so a parsed head is written back byte for byte.
public enum HTTPSerializer: Sendable {
    /// Appends `method SP target SP version CRLF`, the fields and the final CRLF.
    /// - Parameters:
    ///   - head: the head; method must be a token and target free of whitespace and controls.
    ///   - buffer: the buffer to append to.
    public static func appendRequestHead(_ head: HTTPRequestHead, to buffer: inout [UInt8]) {
        unsafe HTTPHeaders.withBytes(of: head.method) { method in
            unsafe precondition(!method.isEmpty && method.allSatisfy(ByteClass.isTchar), "HTTP method must be a token")
            unsafe buffer.append(contentsOf: method)
        }
        buffer.append(ASCII.sp)
        unsafe HTTPHeaders.withBytes(of: head.target) { target in
            unsafe precondition(!target.isEmpty && target.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "request target must be VCHAR")
            unsafe buffer.append(contentsOf: target)
        }
        buffer.append(ASCII.sp)
        appendVersion(head.version, to: &buffer)
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
        appendFields(head.headers, to: &buffer)
    }

    /// Appends `version SP status SP reason CRLF`, the fields and the final CRLF.
    /// - Parameters:
    ///   - head: the head; status must be 100...999.
    ///   - buffer: the buffer to append to.
    public static func appendResponseHead(_ head: HTTPResponseHead, to buffer: inout [UInt8]) {
        precondition((100...999).contains(head.status), "status code must have three digits")
        appendVersion(head.version, to: &buffer)
        buffer.append(ASCII.sp)
        buffer.append(UInt8(0x30 + head.status / 100))
        buffer.append(UInt8(0x30 + head.status / 10 % 10))
        buffer.append(UInt8(0x30 + head.status % 10))
        buffer.append(ASCII.sp)
        appendValue(head.reason, to: &buffer)
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
        appendFields(head.headers, to: &buffer)
    }

    /// Appends a chunk-size line, `<hex size> CRLF` (RFC 9112 §7.1). Write the chunk data
    /// and then `appendChunkEnd(to:)`.
    /// - Parameters:
    ///   - size: the chunk data size, greater than zero (zero is the last chunk).
    ///   - buffer: the buffer to append to.
    public static func appendChunkHeader(size: Int, to buffer: inout [UInt8]) {
        precondition(size > 0, "a zero-size chunk is the last chunk; use appendLastChunk")
        let digits = (Int.bitWidth - size.leadingZeroBitCount + 3) / 4
        for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
            let nibble = UInt8(truncatingIfNeeded: size >> shift) & 0x0F
            buffer.append(nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10)
        }
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }

    /// Appends the CRLF that ends chunk data.
    /// - Parameter buffer: the buffer to append to.
    public static func appendChunkEnd(to buffer: inout [UInt8]) {
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }

    /// Appends the last chunk `0 CRLF`, the trailer fields if any, and the final CRLF.
    /// - Parameters:
    ///   - trailers: trailer fields, or nil.
    ///   - buffer: the buffer to append to.
    public static func appendLastChunk(trailers: HTTPHeaders? = nil, to buffer: inout [UInt8]) {
        buffer.append(0x30)
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
        appendFields(trailers ?? HTTPHeaders(), to: &buffer)
    }

    private static func appendVersion(_ version: HTTPVersion, to buffer: inout [UInt8]) {
        precondition((0...9).contains(version.major) && (0...9).contains(version.minor), "version digits are 0...9")
        buffer.append(contentsOf: "HTTP/".utf8)
        buffer.append(UInt8(0x30 + version.major))
        buffer.append(UInt8(ascii: "."))
        buffer.append(UInt8(0x30 + version.minor))
    }

    /// Each field as `name: value CRLF`, then the CRLF that ends the section. `HTTPHeaders`
    /// checked names and normalised values when they were inserted.
    private static func appendFields(_ headers: HTTPHeaders, to buffer: inout [UInt8]) {
        headers.appendWire(to: &buffer)
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }

    /// The value's Latin-1 bytes with controls replaced by SP and outer whitespace dropped.
    private static func appendValue(_ value: String, to buffer: inout [UInt8]) {
        let start = buffer.count
        Latin1.append(value, to: &buffer)
        for index in start..<buffer.count where !ByteClass.isFieldVchar(buffer[index]) && buffer[index] != ASCII.htab {
            buffer[index] = ASCII.sp
        }
        var end = buffer.count
        while end > start && ByteClass.isWhitespace(buffer[end - 1]) { end -= 1 }
        buffer.removeLast(buffer.count - end)
        var first = start
        while first < end && ByteClass.isWhitespace(buffer[first]) { first += 1 }
        if first > start { buffer.removeSubrange(start..<first) }
    }

}
