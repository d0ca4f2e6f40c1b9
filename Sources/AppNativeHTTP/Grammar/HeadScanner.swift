// The byte-level state machine for a start line plus field section (RFC 9112 §2.1):
//   HTTP-message = start-line CRLF *( field-line CRLF ) CRLF
//   field-line   = field-name ":" OWS field-value OWS
// It validates every byte once, as it arrives, and records index ranges instead of copying.
// All positions are relative to the first byte of the head, so the same state works whether the
// head is scanned in the caller's buffer or in the parser's own buffer after a split.

// Unsafe (the parser's input): `parse` takes the caller's buffer for one call; every step reads
// `bytes[i]` only for `i < count` (or `end`) of that buffer, a head split across calls is copied into
// HeadReader's own buffer, and events carry index ranges, not pointers. See docs/memory-safety.md.

/// Index ranges of one field line, relative to the start of the head.
struct FieldRange: Sendable {
    var nameStart = 0
    var nameEnd = 0
    var valueStart = 0
    var valueEnd = 0
    /// Whether the value holds obs-text (0x80–0xFF); false lets string building skip transcoding.
    var hasHighBytes = false
}

/// The field ranges of the current head. Cleared by count, so the storage is reused across
/// messages without reallocating or re-initialising it.
struct FieldList: RandomAccessCollection, Sendable {
    private var storage: [FieldRange] = []
    private(set) var endIndex = 0

    var startIndex: Int { 0 }

    subscript(position: Int) -> FieldRange { storage[position] }

    mutating func append(_ field: FieldRange) {
        if endIndex < storage.count {
            storage[endIndex] = field
        } else {
            storage.append(field)
        }
        endIndex += 1
    }

    mutating func removeAll() {
        endIndex = 0
    }
}

struct HeadScanner: Sendable {
    enum Kind: Sendable {
        case request, response, trailers
    }

    private enum State: UInt8, Sendable {
        // Start line (request).
        case method, target, requestVersion
        // Start line (response).
        case responseVersion, statusCode, reason
        case startLineLF
        // Field section; every state from here on counts against maxHeaderBytes.
        case lineStart, name, leadingWhitespace, value, fieldLF, sectionLF
        case complete
    }

    private(set) var kind: Kind
    private var state: State
    /// Next byte to scan.
    private(set) var position = 0

    // Request line.
    private(set) var method = ""
    private(set) var targetStart = 0
    private(set) var targetEnd = 0
    // Status line.
    private(set) var status = 0
    private(set) var reasonStart = 0
    private(set) var reasonEnd = 0
    private(set) var reasonHasHighBytes = false
    // Both.
    private(set) var version = HTTPVersion.http1_1
    private var versionStart = 0
    private(set) var fieldsStart = 0
    private(set) var fields = FieldList()
    private var current = FieldRange()

    init(kind: Kind) {
        self.kind = kind
        state = Self.initialState(kind)
    }

    /// Starts over for a new head, keeping the field array's storage.
    mutating func reset(kind: Kind) {
        self.kind = kind
        state = Self.initialState(kind)
        position = 0
        fieldsStart = 0
        status = 0
        reasonHasHighBytes = false
        fields.removeAll()
    }

    private static func initialState(_ kind: Kind) -> State {
        switch kind {
        case .request: .method
        case .response: .responseVersion
        case .trailers: .lineStart
        }
    }

    /// Scans `bytes[position..<count]`, where `bytes[0]` is the first byte of the head.
    /// - Returns: true when the head is complete; `position` is then just past its final LF.
    /// - Throws: the first rule the bytes break, or the first limit they pass.
    mutating func scan(_ bytes: UnsafePointer<UInt8>, count: Int, limits: HTTPLimits) throws(HTTPParseError) -> Bool {
        var index = position
        defer { position = index }
        while index < count {
            switch state {
            case .method:
                while unsafe index < count && ByteClass.isTchar(bytes[index]) { index &+= 1 }
                try checkRequestLine(index, limits)
                guard index < count else { break }
                guard unsafe bytes[index] == ASCII.sp, index > 0 else {
                    throw HTTPParseError(.invalidRequestLine, reason: "method is not a token followed by a single space")
                }
                guard let allowed = unsafe AllowedMethod.match(bytes, count: index) else {
                    if unsafe AllowedMethod.isRefused(bytes, count: index) {
                        throw HTTPParseError(.refusedMethod, reason: "TRACE and QUERY are refused")
                    }
                    if unsafe AllowedMethod.isHTTP2Preface(bytes, count: index) {
                        throw HTTPParseError(.unsupportedVersion, reason: "HTTP/2 connection preface on an HTTP/1.1 listener")
                    }
                    throw HTTPParseError(.unsupportedMethod, reason: "method is not on the allow-list")
                }
                method = allowed
                index &+= 1
                targetStart = index
                state = .target
                // The common case has the whole line in view: go on without re-dispatching.
                fallthrough

            case .target:
                while unsafe index &+ 8 <= count && Word.isPlainTarget(Word.load(bytes, index)) { index &+= 8 }
                while unsafe index < count && ByteClass.isTargetByte(bytes[index]) { index &+= 1 }
                try checkRequestLine(index, limits)
                guard index < count else { break }
                let byte = unsafe bytes[index]
                guard byte == ASCII.sp else {
                    if byte == ASCII.lf { throw HTTPParseError(.bareLF, reason: "LF inside the request line") }
                    if byte == ASCII.cr { throw HTTPParseError(.invalidRequestLine, reason: "request line without a version") }
                    throw HTTPParseError(.invalidTarget, reason: "request target contains a byte outside VCHAR")
                }
                guard index > targetStart else {
                    throw HTTPParseError(.invalidRequestLine, reason: "empty request target (two spaces)")
                }
                targetEnd = index
                // Only the check matters here; forwarding classifies the target again if it needs the parts.
                _ = unsafe try RequestTargetForm.classify(
                    UnsafeBufferPointer(start: bytes + targetStart, count: targetEnd - targetStart),
                    method: method
                )
                index &+= 1
                versionStart = index
                state = .requestVersion
                fallthrough

            case .requestVersion:
                // "HTTP/" DIGIT "." DIGIT, then CR.
                while index < count && index - versionStart < 8 {
                    guard unsafe Self.isVersionByte(bytes[index], at: index - versionStart) else {
                        throw HTTPParseError(.invalidVersion, reason: "version is not HTTP/DIGIT.DIGIT")
                    }
                    index &+= 1
                }
                guard index < count else { break }
                let byte = unsafe bytes[index]
                guard byte == ASCII.cr else {
                    if byte == ASCII.lf { throw HTTPParseError(.bareLF, reason: "request line ends in a bare LF") }
                    throw HTTPParseError(.invalidVersion, reason: "request line continues after the version")
                }
                try checkRequestLine(index, limits)
                version = unsafe Self.version(bytes + versionStart)
                guard version.major == 1 else {
                    throw HTTPParseError(.unsupportedVersion, reason: "HTTP major version is not 1")
                }
                index &+= 1
                state = .startLineLF

            case .responseVersion:
                while index < count && index < 8 {
                    guard unsafe Self.isVersionByte(bytes[index], at: index) else {
                        throw HTTPParseError(.invalidStatusLine, reason: "version is not HTTP/DIGIT.DIGIT")
                    }
                    index &+= 1
                }
                guard index < count else { break }
                guard unsafe bytes[index] == ASCII.sp else {
                    throw HTTPParseError(.invalidStatusLine, reason: "version not followed by a single space")
                }
                version = unsafe Self.version(bytes)
                guard version.major == 1 else {
                    throw HTTPParseError(.unsupportedVersion, reason: "HTTP major version is not 1")
                }
                index &+= 1
                state = .statusCode

            case .statusCode:
                // 3DIGIT at offsets 9, 10, 11; then SP and a reason, or CR: "HTTP/1.1 204\r\n" is
                // common enough to accept, and the missing SP cannot change framing.
                while index < count && index < 12 {
                    guard unsafe ByteClass.isDigit(bytes[index]) else {
                        throw HTTPParseError(.invalidStatusLine, reason: "status code is not three digits")
                    }
                    status = unsafe status * 10 + Int(bytes[index] &- 0x30)
                    index &+= 1
                }
                guard index < count else { break }
                guard status >= 100 else {
                    throw HTTPParseError(.invalidStatusLine, reason: "status code below 100")
                }
                if unsafe bytes[index] == ASCII.sp {
                    index &+= 1
                    reasonStart = index
                    reasonEnd = index
                    state = .reason
                } else if unsafe bytes[index] == ASCII.cr {
                    reasonStart = index
                    reasonEnd = index
                    index &+= 1
                    state = .startLineLF
                } else {
                    throw HTTPParseError(.invalidStatusLine, reason: "status code not followed by a space")
                }

            case .reason:
                // reason-phrase = 1*( HTAB / SP / VCHAR / obs-text )
                var high: UInt8 = 0
                while index < count {
                    let byte = unsafe bytes[index]
                    guard ByteClass.isFieldVchar(byte) || ByteClass.isWhitespace(byte) else { break }
                    high |= byte
                    index &+= 1
                }
                if high >= 0x80 { reasonHasHighBytes = true }
                try checkRequestLine(index, limits)
                guard index < count else { break }
                guard unsafe bytes[index] == ASCII.cr else {
                    if unsafe bytes[index] == ASCII.lf { throw HTTPParseError(.bareLF, reason: "status line ends in a bare LF") }
                    throw HTTPParseError(.invalidStatusLine, reason: "control character in the reason phrase")
                }
                reasonEnd = index
                index &+= 1
                state = .startLineLF

            case .startLineLF:
                guard unsafe bytes[index] == ASCII.lf else {
                    throw HTTPParseError(.bareCR, reason: "CR not followed by LF after the start line")
                }
                index &+= 1
                fieldsStart = index
                state = .lineStart

            case .lineStart:
                let byte = unsafe bytes[index]
                if ByteClass.isTchar(byte) {
                    guard fields.count < limits.maxHeaderCount else {
                        throw HTTPParseError(.tooManyHeaders, reason: "more field lines than maxHeaderCount")
                    }
                    current.nameStart = index
                    index &+= 1
                    state = .name
                    // A whole field line usually is in view: scan it without re-dispatching
                    // (name, whitespace, value, LF fall through to each other).
                    fallthrough
                } else if byte == ASCII.cr {
                    index &+= 1
                    state = .sectionLF
                } else if ByteClass.isWhitespace(byte) {
                    // RFC 9112 §5.2: obs-fold is rejected. Whitespace before the first field
                    // line is the §2.2 case of a line that could be read as part of the start line.
                    if fields.isEmpty {
                        throw HTTPParseError(.invalidHeader, reason: "whitespace before the first field line")
                    }
                    throw HTTPParseError(.obsFold, reason: "obsolete line folding")
                } else if byte == ASCII.lf {
                    throw HTTPParseError(.bareLF, reason: "field section line ends in a bare LF")
                } else {
                    throw HTTPParseError(.invalidHeader, reason: "field name is empty or not a token")
                }

            case .name:
                while unsafe index < count && ByteClass.isTchar(bytes[index]) { index &+= 1 }
                try checkSection(index, limits)
                guard index < count else { break }
                let byte = unsafe bytes[index]
                if byte == ASCII.colon {
                    current.nameEnd = index
                    index &+= 1
                    state = .leadingWhitespace
                    fallthrough
                } else if ByteClass.isWhitespace(byte) {
                    throw HTTPParseError(.whitespaceBeforeColon, reason: "whitespace between field name and colon")
                } else if byte == ASCII.lf {
                    throw HTTPParseError(.bareLF, reason: "bare LF inside a field name")
                } else {
                    throw HTTPParseError(.invalidHeader, reason: "field name is not a token followed by a colon")
                }

            case .leadingWhitespace:
                while unsafe index < count && ByteClass.isWhitespace(bytes[index]) { index &+= 1 }
                try checkSection(index, limits)
                guard index < count else { break }
                current.valueStart = index
                current.valueEnd = index
                current.hasHighBytes = false
                state = .value
                fallthrough

            case .value:
                // field-value = *field-content. Whole words of plain content are skipped eight
                // bytes at a time; trailing whitespace is trimmed once the CR is found.
                var high: UInt64 = 0
                // Sixteen bytes a step while both words are plain (long tokens and cookies).
                while index &+ 16 <= count {
                    let first = unsafe Word.load(bytes, index)
                    let second = unsafe Word.load(bytes, index &+ 8)
                    guard Word.fieldContentFlags(first) | Word.fieldContentFlags(second) == 0 else { break }
                    high |= first | second
                    index &+= 16
                }
                while index &+ 8 <= count {
                    let word = unsafe Word.load(bytes, index)
                    guard Word.isPlainFieldContent(word) else { break }
                    high |= word
                    index &+= 8
                }
                while index < count {
                    let byte = unsafe bytes[index]
                    guard ByteClass.isFieldVchar(byte) || ByteClass.isWhitespace(byte) else { break }
                    high |= UInt64(byte)
                    index &+= 1
                }
                if high & Word.highBits != 0 { current.hasHighBytes = true }
                try checkSection(index, limits)
                guard index < count else { break }
                let byte = unsafe bytes[index]
                if byte == ASCII.cr {
                    var end = index
                    while unsafe end > current.valueStart && ByteClass.isWhitespace(bytes[end &- 1]) { end &-= 1 }
                    current.valueEnd = end
                    index &+= 1
                    state = .fieldLF
                    fallthrough
                } else if byte == ASCII.lf {
                    throw HTTPParseError(.bareLF, reason: "field line ends in a bare LF")
                } else {
                    throw HTTPParseError(.invalidHeader, reason: "control character in a field value")
                }

            case .fieldLF:
                guard index < count else { break }
                guard unsafe bytes[index] == ASCII.lf else {
                    throw HTTPParseError(.bareCR, reason: "CR not followed by LF in a field line")
                }
                index &+= 1
                fields.append(current)
                state = .lineStart

            case .sectionLF:
                guard unsafe bytes[index] == ASCII.lf else {
                    throw HTTPParseError(.bareCR, reason: "CR not followed by LF at the end of the field section")
                }
                index &+= 1
                try checkSection(index, limits)
                state = .complete
                return true

            case .complete:
                return true
            }
            if state.rawValue >= State.lineStart.rawValue { try checkSection(index, limits) }
        }
        return state == .complete
    }

    @inline(__always)
    private func checkRequestLine(_ index: Int, _ limits: HTTPLimits) throws(HTTPParseError) {
        if index > limits.maxRequestLineBytes {
            throw HTTPParseError(.requestLineTooLong, reason: "start line longer than maxRequestLineBytes")
        }
    }

    @inline(__always)
    private func checkSection(_ index: Int, _ limits: HTTPLimits) throws(HTTPParseError) {
        if index - fieldsStart > limits.maxHeaderBytes {
            throw HTTPParseError(.headerSectionTooLarge, reason: "field section larger than maxHeaderBytes")
        }
    }

    /// RFC 9112 §2.3: HTTP-version = HTTP-name "/" DIGIT "." DIGIT; HTTP-name = %s"HTTP".
    @inline(__always)
    private static func isVersionByte(_ byte: UInt8, at offset: Int) -> Bool {
        switch offset {
        case 0: byte == UInt8(ascii: "H")
        case 1, 2: byte == UInt8(ascii: "T")
        case 3: byte == UInt8(ascii: "P")
        case 4: byte == ASCII.slash
        case 6: byte == UInt8(ascii: ".")
        default: ByteClass.isDigit(byte)
        }
    }

    private static func version(_ bytes: UnsafePointer<UInt8>) -> HTTPVersion {
        unsafe HTTPVersion(major: Int(bytes[5] &- 0x30), minor: Int(bytes[7] &- 0x30))
    }
}
