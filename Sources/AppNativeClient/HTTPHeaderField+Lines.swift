// Unsafe: `bytes` is the header line libcurl passes to its callback, valid for that call; the line
// is copied into Strings before the callback returns.

extension HTTPHeaderField {
    /// Reads one response header line as libcurl delivers it (one per call, CRLF included) into
    /// `headers`: a status line starts a new block, so interim 1xx and followed 3xx responses'
    /// fields are dropped and only the final response's remain; an obs-fold line continues the
    /// previous value (RFC 9112 §5.2); a line without a colon is ignored. Names and values are
    /// read as ISO-8859-1 and trimmed of SP and HTAB, nothing else: they are the peer's bytes,
    /// so whoever turns them into fields to send validates them (`HTTPHeaders.isValidFieldName`).
    /// Public so the fuzz harnesses read lines exactly as the client does.
    /// - Parameters:
    ///   - bytes: the line.
    ///   - headers: the fields of the response so far.
    public static func collect(line bytes: UnsafeRawBufferPointer, into headers: inout [HTTPHeaderField]) {
        var line = unsafe bytes[...]
        while let last = unsafe line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") {
            unsafe line = line.dropLast()
        }
        if unsafe line.starts(with: "HTTP/".utf8) {
            headers.removeAll()
            return
        }
        guard let first = unsafe line.first else { return }  // the blank line ending the block
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            // Joined with one SP only between non-empty parts, so the value keeps no surrounding
            // whitespace (a blank continuation line would otherwise leave a trailing SP).
            let continuation = unsafe latin1(trimmed(line))
            if !headers.isEmpty, !continuation.isEmpty {
                let previous = headers[headers.count - 1].value
                headers[headers.count - 1].value = previous.isEmpty ? continuation : previous + " " + continuation
            }
            return
        }
        guard let colon = unsafe line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = unsafe latin1(trimmed(line[..<colon]))
        let value = unsafe latin1(trimmed(line[line.index(after: colon)...]))
        headers.append(HTTPHeaderField(name: name, value: value))
    }

    private static func trimmed(_ bytes: UnsafeRawBufferPointer.SubSequence) -> UnsafeRawBufferPointer.SubSequence {
        var slice = unsafe bytes
        while let first = unsafe slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            unsafe slice = slice.dropFirst()
        }
        while let last = unsafe slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            unsafe slice = slice.dropLast()
        }
        return unsafe slice
    }

    /// Field bytes as ISO-8859-1, so obs-text survives byte-for-byte instead of turning into
    /// replacement characters.
    private static func latin1(_ bytes: UnsafeRawBufferPointer.SubSequence) -> String {
        // ASCII (every field APNs and the JWKS hosts send) is the same in both encodings.
        if unsafe bytes.allSatisfy({ $0 < 0x80 }) {
            return unsafe String(decoding: UnsafeRawBufferPointer(rebasing: bytes), as: UTF8.self)
        }
        var text = String.UnicodeScalarView()
        for unsafe byte in unsafe bytes { text.append(Unicode.Scalar(byte)) }
        return String(text)
    }
}
