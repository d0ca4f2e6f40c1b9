// RFC 9112 §7.1:
//   chunked-body   = *chunk last-chunk trailer-section CRLF
//   chunk          = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//   chunk-size     = 1*HEXDIG
//   last-chunk     = 1*("0") [ chunk-ext ] CRLF
//   chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
//   chunk-ext-name = token
//   chunk-ext-val  = token / quoted-string
// Extensions are validated and dropped. Whitespace is only accepted where BWS is: after the
// size or a value it must lead to ";" (so "5 \r\n" is refused), after a name to ";" or "=".
// The trailer section is read by HeadScanner, not here.

// Unsafe (the parser's input): `parse` takes the caller's buffer for one call; every step reads
// `bytes[i]` only for `i < count` (or `end`) of that buffer, a head split across calls is copied into
// HeadReader's own buffer, and events carry index ranges, not pointers. See docs/memory-safety.md.

struct ChunkedDecoder: Sendable {
    enum Step: Equatable {
        /// More input is needed.
        case needMore
        /// Chunk data at these input indices.
        case data(Range<Int>)
        /// The last-chunk line has been read; the trailer section starts at the returned index.
        case lastChunk
    }

    private enum State: UInt8, Sendable {
        case size
        /// Whitespace after the size or after a value: only ";" (or more whitespace) may follow.
        case whitespaceBeforeSemicolon
        /// After ";": optional whitespace, then a name.
        case extensionNameStart
        case extensionName
        /// Whitespace after a name: ";", "=" or more whitespace.
        case afterExtensionName
        /// After "=": optional whitespace, then a token or a quoted string.
        case extensionValueStart
        case extensionToken
        case quotedString
        case quotedPair
        /// After a closing quote: ";", CR or whitespace.
        case afterQuotedString
        case sizeLineLF
        case data
        case dataCR
        case dataLF
    }

    /// Longest chunk-size line (size and extensions) accepted. Extensions are not buffered, but
    /// an unbounded line would let a peer make the connection busy without moving the body.
    static let maxSizeLineBytes = 4096

    private var state = State.size
    private var size: UInt64 = 0
    private var sizeDigits = 0
    private var sizeLineBytes = 0
    private var remaining: UInt64 = 0
    /// Body bytes announced so far, checked against maxBodyBytes.
    private(set) var total: UInt64 = 0

    /// Decodes from `bytes[start..<end]`.
    /// - Returns: the index of the first unconsumed byte and what was found.
    mutating func decode(
        _ bytes: UnsafePointer<UInt8>,
        start: Int,
        end: Int,
        maxBodyBytes: UInt64?
    ) throws(HTTPParseError) -> (next: Int, step: Step) {
        var index = start
        while index < end {
            let lineStart = index
            let isOnSizeLine = state.rawValue < State.sizeLineLF.rawValue
            switch state {
            case .size:
                while index < end, let digit = unsafe ByteClass.hexValue(bytes[index]) {
                    // RFC 9112 §7.1: recipients MUST anticipate large sizes and prevent overflow.
                    guard size >> 60 == 0 else {
                        throw HTTPParseError(.invalidChunk, reason: "chunk size overflows 64 bits")
                    }
                    size = size << 4 | UInt64(digit)
                    sizeDigits += 1
                    index &+= 1
                }
                guard index < end else { break }
                guard sizeDigits > 0 else {
                    throw HTTPParseError(.invalidChunk, reason: "chunk size is not 1*HEXDIG")
                }
                // The size is known now: refuse before any of it is delivered.
                if let max = maxBodyBytes, size > max || total > max - size {
                    throw HTTPParseError(.bodyTooLarge, reason: "chunked body larger than maxBodyBytes")
                }
                let (sum, overflow) = total.addingReportingOverflow(size)
                guard !overflow else {
                    throw HTTPParseError(.invalidChunk, reason: "chunked body size overflows 64 bits")
                }
                total = sum
                let byte = unsafe bytes[index]
                index &+= 1
                state = try Self.stateAfterItem(byte, acceptsValue: false, "chunk size followed by a byte that is not HEXDIG")

            case .whitespaceBeforeSemicolon:
                while unsafe index < end && ByteClass.isWhitespace(bytes[index]) { index &+= 1 }
                guard index < end else { break }
                guard unsafe bytes[index] == ASCII.semicolon else {
                    throw HTTPParseError(.invalidChunk, reason: "whitespace in a chunk line not followed by ';'")
                }
                index &+= 1
                state = .extensionNameStart

            case .extensionNameStart:
                while unsafe index < end && ByteClass.isWhitespace(bytes[index]) { index &+= 1 }
                guard index < end else { break }
                guard unsafe ByteClass.isTchar(bytes[index]) else {
                    throw HTTPParseError(.invalidChunk, reason: "chunk extension without a token name")
                }
                index &+= 1
                state = .extensionName

            case .extensionName:
                while unsafe index < end && ByteClass.isTchar(bytes[index]) { index &+= 1 }
                guard index < end else { break }
                let byte = unsafe bytes[index]
                index &+= 1
                state = try Self.stateAfterItem(byte, acceptsValue: true, "chunk extension name followed by an invalid byte")

            case .afterExtensionName:
                while unsafe index < end && ByteClass.isWhitespace(bytes[index]) { index &+= 1 }
                guard index < end else { break }
                let byte = unsafe bytes[index]
                index &+= 1
                switch byte {
                case ASCII.semicolon: state = .extensionNameStart
                case ASCII.equals: state = .extensionValueStart
                default: throw HTTPParseError(.invalidChunk, reason: "whitespace after a chunk extension name not followed by ';' or '='")
                }

            case .extensionValueStart:
                while unsafe index < end && ByteClass.isWhitespace(bytes[index]) { index &+= 1 }
                guard index < end else { break }
                let byte = unsafe bytes[index]
                index &+= 1
                if byte == ASCII.dquote {
                    state = .quotedString
                } else if ByteClass.isTchar(byte) {
                    state = .extensionToken
                } else {
                    throw HTTPParseError(.invalidChunk, reason: "chunk extension value is neither a token nor a quoted string")
                }

            case .extensionToken:
                while unsafe index < end && ByteClass.isTchar(bytes[index]) { index &+= 1 }
                guard index < end else { break }
                let byte = unsafe bytes[index]
                index &+= 1
                state = try Self.stateAfterItem(byte, acceptsValue: false, "chunk extension value followed by an invalid byte")

            case .quotedString:
                // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text (RFC 9110 §5.6.4)
                while index < end {
                    let byte = unsafe bytes[index]
                    guard (ByteClass.isFieldVchar(byte) || ByteClass.isWhitespace(byte)) && byte != ASCII.dquote
                        && byte != ASCII.backslash
                    else { break }
                    index &+= 1
                }
                guard index < end else { break }
                let byte = unsafe bytes[index]
                index &+= 1
                switch byte {
                case ASCII.dquote: state = .afterQuotedString
                case ASCII.backslash: state = .quotedPair
                default: throw HTTPParseError(.invalidChunk, reason: "unterminated quoted string in a chunk extension")
                }

            case .quotedPair:
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                let byte = unsafe bytes[index]
                guard ByteClass.isFieldVchar(byte) || ByteClass.isWhitespace(byte) else {
                    throw HTTPParseError(.invalidChunk, reason: "invalid quoted-pair in a chunk extension")
                }
                index &+= 1
                state = .quotedString

            case .afterQuotedString:
                let byte = unsafe bytes[index]
                index &+= 1
                state = try Self.stateAfterItem(byte, acceptsValue: false, "quoted chunk extension value followed by an invalid byte")

            case .sizeLineLF:
                guard unsafe bytes[index] == ASCII.lf else {
                    throw HTTPParseError(.bareCR, reason: "CR not followed by LF in a chunk size line")
                }
                index &+= 1
                sizeLineBytes = 0
                sizeDigits = 0
                if size == 0 {
                    state = .size
                    return (index, .lastChunk)
                }
                remaining = size
                size = 0
                state = .data

            case .data:
                let available = UInt64(end - index)
                let taken = Int(min(available, remaining))
                remaining -= UInt64(taken)
                if remaining == 0 { state = .dataCR }
                return (index + taken, .data(index..<(index + taken)))

            case .dataCR:
                let byte = unsafe bytes[index]
                guard byte == ASCII.cr else {
                    if byte == ASCII.lf { throw HTTPParseError(.bareLF, reason: "chunk data ends in a bare LF") }
                    throw HTTPParseError(.invalidChunk, reason: "chunk data longer than its size")
                }
                index &+= 1
                state = .dataLF

            case .dataLF:
                guard unsafe bytes[index] == ASCII.lf else {
                    throw HTTPParseError(.bareCR, reason: "CR not followed by LF after chunk data")
                }
                index &+= 1
                state = .size
            }
            if isOnSizeLine {
                sizeLineBytes += index - lineStart
                if sizeLineBytes > Self.maxSizeLineBytes {
                    throw HTTPParseError(.invalidChunk, reason: "chunk size line longer than 4096 bytes")
                }
            }
        }
        return (index, .needMore)
    }

    /// The state after `byte`, read where an item of the size line (the size, an extension name
    /// or value) ends: CR ends the line, ";" starts an extension, whitespace must lead on to ";"
    /// (or, after a name, to "="), and "=" starts a value where `acceptsValue` (after a name).
    /// Anything else is refused with `reason`; a bare LF as such.
    private static func stateAfterItem(
        _ byte: UInt8,
        acceptsValue: Bool,
        _ reason: String
    ) throws(HTTPParseError) -> State {
        switch byte {
        case ASCII.cr: return .sizeLineLF
        case ASCII.semicolon: return .extensionNameStart
        case ASCII.equals where acceptsValue: return .extensionValueStart
        case ASCII.sp, ASCII.htab: return acceptsValue ? .afterExtensionName : .whitespaceBeforeSemicolon
        case ASCII.lf: throw HTTPParseError(.bareLF, reason: "chunk size line ends in a bare LF")
        default: throw HTTPParseError(.invalidChunk, reason: reason)
        }
    }
}
