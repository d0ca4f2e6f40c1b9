// Unsafe: the body piece is borrowed for one call; events carry index ranges into it or bytes the
// parser holds itself, and the buffers handed to the caller's closure are valid for that call only.

/// An incremental, strict `multipart/form-data` parser (RFC 7578 over RFC 2046 §5.1) for request
/// bodies that may be far larger than memory.
///
/// Feed it body bytes as they arrive; it returns one event at a time. Content is handed on as
/// ranges of the caller's buffer (no copy); only the few bytes that might begin a delimiter are
/// held back across calls and handed on as `.heldContent` once they turn out to be content.
/// Memory is bounded by `MultipartLimits.maxHeaderLineBytes` plus the delimiter length, however
/// large a part is.
///
/// Strictness, so that this parser and an upstream never disagree about the parts:
/// - Delimiters are `CRLF "--" boundary`; a bare LF never ends content or a header line.
/// - `"--" boundary` followed by anything but `--`, CRLF or transport padding is content
///   (RFC 2046 §5.1.1). After the boundary, a space or tab commits to a delimiter: the line
///   must then end in CRLF, else `.invalidDelimiter` (bounded lookbehind, no guessing).
/// - The first delimiter may open the body or follow a preamble; the preamble is dropped. If it
///   is the close delimiter, the body has zero parts. The epilogue is ignored.
/// - Part headers: no obs-fold, no bare CR or LF, no whitespace before the colon, controls
///   refused; exactly one Content-Disposition `form-data` with one `name`; at most one
///   Content-Type; Content-Transfer-Encoding only as 7bit, 8bit or binary (never decoded).
/// - End of input before the close delimiter is `.truncated`.
/// - Errors are sticky: once `parse` has thrown, it throws the same error again.
///
/// Usage: call `parse` with the unconsumed input until it has consumed everything and returned
/// no event, handling each event as it comes; at the end of the body call `finish()`. Act on
/// the parts only after `.finished` (see `MultipartEvent`).
public struct MultipartParser: Sendable {
    /// The boundary in force.
    public let boundary: MultipartBoundary
    /// The limits in force.
    public let limits: MultipartLimits

    private enum State: Sendable, Equatable {
        case preamble
        case content
        /// After a boundary: transport padding, then CRLF.
        case padding(isClose: Bool)
        /// Padding ended in CR; LF must follow.
        case paddingLF(isClose: Bool)
        case headers
        case epilogue
        case failed
    }

    private enum DelimiterKind {
        case open, padded, close
    }

    private var state = State.preamble
    private var failure: HTTPParseError?
    /// `CRLF "--" boundary`.
    private let delimiter: [UInt8]
    /// How many bytes of a candidate delimiter have been matched (up to `delimiter.count + 1`,
    /// the last being `extraByte`). Between calls, all of them came from earlier buffers: a call
    /// that stops with a candidate in progress has consumed its whole buffer.
    private var matched: Int
    /// The byte after the boundary in a candidate of `delimiter.count + 1` bytes: `-` or CR.
    private var extraByte: UInt8 = 0
    private var partCount = 0
    private var contentBytes: UInt64 = 0
    private var contentLimit: UInt64?
    // The part header section being read.
    private var line: [UInt8] = []
    private var hasPendingCR = false
    private var headerCount = 0
    /// The last Content-Disposition value of the part (the reference keeps the last).
    private var disposition: [UInt8]?
    private var contentType: String?

    /// - Parameters:
    ///   - boundary: the boundary of the body.
    ///   - limits: the limits to enforce.
    public init(boundary: MultipartBoundary, limits: MultipartLimits = MultipartLimits()) {
        self.boundary = boundary
        self.limits = limits
        delimiter = [ASCII.cr, ASCII.lf, UInt8(ascii: "-"), UInt8(ascii: "-")] + Array(boundary.value.utf8)
        // The body starts as if after a CRLF, so a delimiter on its first line needs none.
        matched = 2
    }

    /// A parser for a request with this Content-Type.
    /// - Parameters:
    ///   - contentType: the request's Content-Type field value.
    ///   - limits: the limits to enforce.
    /// - Throws: `HTTPParseError` `.invalidMultipartType` or `.invalidBoundary` (400).
    public init(contentType: String, limits: MultipartLimits = MultipartLimits()) throws(HTTPParseError) {
        self.init(boundary: try MultipartBoundary(contentType: contentType), limits: limits)
    }

    /// Consumes bytes from the start of `input` and returns at most one event.
    ///
    /// `(consumed, nil)` means more input is needed. `.content` ranges index `input`.
    /// - Parameter input: body bytes received and not consumed by an earlier call.
    /// - Returns: how many bytes of `input` were consumed, and the event they completed.
    /// - Throws: `HTTPParseError` with status 400 or 413; see `HTTPParseError.Code`.
    public mutating func parse(
        _ input: UnsafeRawBufferPointer
    ) throws(HTTPParseError) -> (consumed: Int, event: MultipartEvent?) {
        do throws(HTTPParseError) {
            if state == .failed {
                throw failure ?? HTTPParseError(.truncated, reason: "multipart parser failed")
            }
            guard let base = input.baseAddress, unsafe !input.isEmpty else { return (0, nil) }
            let bytes = unsafe base.assumingMemoryBound(to: UInt8.self)
            var offset = 0
            while offset < input.count {
                let (consumed, event) = unsafe try step(bytes + offset, count: input.count - offset)
                if let event {
                    if case .content(let range) = event {
                        return (offset + consumed, .content((range.lowerBound + offset)..<(range.upperBound + offset)))
                    }
                    return (offset + consumed, event)
                }
                precondition(consumed > 0, "a multipart step neither consumed nor produced")
                offset += consumed
            }
            return (offset, nil)
        } catch {
            state = .failed
            failure = error
            throw error
        }
    }

    /// Tells the parser the body has ended.
    /// - Returns: `.finished` when the body ended right after the close delimiter (with no
    ///   CRLF); nil when `.finished` was already returned by `parse`.
    /// - Throws: `HTTPParseError` `.truncated` (400) when the close delimiter is missing.
    public mutating func finish() throws(HTTPParseError) -> MultipartEvent? {
        let error: HTTPParseError
        switch state {
        case .epilogue:
            return nil
        case .padding(isClose: true):
            state = .epilogue
            return .finished
        case .failed:
            throw failure ?? HTTPParseError(.truncated, reason: "multipart parser failed")
        case .preamble:
            error = HTTPParseError(.truncated, reason: "body ended before the first delimiter")
        case .headers:
            error = HTTPParseError(.truncated, reason: "body ended inside a part header section")
        case .content:
            error = HTTPParseError(.truncated, reason: "body ended inside a part (no close delimiter)")
        case .padding, .paddingLF:
            error = HTTPParseError(.truncated, reason: "body ended inside a delimiter line")
        }
        state = .failed
        failure = error
        throw error
    }

    private mutating func step(
        _ bytes: UnsafePointer<UInt8>,
        count: Int
    ) throws(HTTPParseError) -> (consumed: Int, event: MultipartEvent?) {
        switch state {
        case .preamble, .content:
            return unsafe try scan(bytes, count: count)
        case .headers:
            return unsafe try readHeaders(bytes, count: count)
        case .padding(let isClose):
            for index in 0..<count {
                let byte = unsafe bytes[index]
                if ByteClass.isWhitespace(byte) { continue }
                guard byte == ASCII.cr else {
                    throw HTTPParseError(.invalidDelimiter, reason: "delimiter not followed by transport padding and CRLF")
                }
                state = .paddingLF(isClose: isClose)
                return (index + 1, nil)
            }
            return (count, nil)
        case .paddingLF(let isClose):
            guard unsafe bytes[0] == ASCII.lf else {
                throw HTTPParseError(.invalidDelimiter, reason: "CR not followed by LF after a delimiter")
            }
            if isClose {
                state = .epilogue
                return (1, .finished)
            }
            beginHeaders()
            return (1, nil)
        case .epilogue:
            return (count, nil)
        case .failed:
            throw failure ?? HTTPParseError(.truncated, reason: "multipart parser failed")
        }
    }

    /// Looks for the next delimiter in the preamble (dropping what precedes it) or in content
    /// (handing on what precedes it).
    private mutating func scan(
        _ bytes: UnsafePointer<UInt8>,
        count: Int
    ) throws(HTTPParseError) -> (consumed: Int, event: MultipartEvent?) {
        let isPreamble = state == .preamble
        let boundaryEnd = delimiter.count
        // Where the candidate began; negative when it began in an earlier buffer.
        var start = -matched
        var index = 0
        while index < count {
            let byte = unsafe bytes[index]
            if matched == 0 {
                if byte == ASCII.cr {
                    start = index
                    matched = 1
                }
                index += 1
                continue
            }
            if matched < boundaryEnd {
                if byte == delimiter[matched] {
                    matched += 1
                    index += 1
                    continue
                }
            } else if matched == boundaryEnd {
                switch byte {
                case UInt8(ascii: "-"), ASCII.cr:
                    extraByte = byte
                    matched += 1
                    index += 1
                    continue
                case ASCII.sp, ASCII.htab:
                    return try commit(.padded, start: start, end: index + 1, isPreamble: isPreamble)
                default:
                    break
                }
            } else {
                if extraByte == UInt8(ascii: "-") && byte == UInt8(ascii: "-") {
                    return try commit(.close, start: start, end: index + 1, isPreamble: isPreamble)
                }
                if extraByte == ASCII.cr && byte == ASCII.lf {
                    return try commit(.open, start: start, end: index + 1, isPreamble: isPreamble)
                }
            }
            // Not a delimiter: the candidate is content, except that a CR after the boundary
            // may itself begin the next candidate.
            let endsInCR = matched == boundaryEnd + 1 && extraByte == ASCII.cr
            if start < 0 {
                // Candidate bytes from earlier buffers go on before anything in this one.
                var held = Array(delimiter[0..<min(-start, boundaryEnd)])
                if -start > boundaryEnd { held.append(extraByte) }
                if endsInCR && -start == boundaryEnd + 1 {
                    held.removeLast()
                    matched = 1
                } else {
                    matched = 0
                }
                start = -matched
                index = 0
                if isPreamble { continue }
                try account(held.count)
                return (0, .heldContent(held))
            }
            if endsInCR { index = start + boundaryEnd }
            matched = 0
        }
        if isPreamble { return (count, nil) }
        let contentEnd = matched > 0 ? max(start, 0) : count
        guard contentEnd > 0 else { return (count, nil) }
        try account(contentEnd)
        return (count, .content(0..<contentEnd))
    }

    private mutating func commit(
        _ kind: DelimiterKind,
        start: Int,
        end: Int,
        isPreamble: Bool
    ) throws(HTTPParseError) -> (consumed: Int, event: MultipartEvent?) {
        matched = 0
        if start > 0 && !isPreamble {
            // The content before the delimiter goes first; the next call matches it again.
            try account(start)
            return (start, .content(0..<start))
        }
        switch kind {
        case .close:
            state = .padding(isClose: true)
        case .open, .padded:
            guard partCount < limits.maxParts else {
                throw HTTPParseError(.tooManyParts, reason: "more parts than maxParts")
            }
            partCount += 1
            if kind == .open { beginHeaders() } else { state = .padding(isClose: false) }
        }
        return (end, isPreamble ? nil : .partEnded)
    }

    private mutating func account(_ count: Int) throws(HTTPParseError) {
        contentBytes += UInt64(count)
        if let contentLimit, contentBytes > contentLimit {
            throw HTTPParseError(.partTooLarge, reason: "part content larger than its limit")
        }
    }

    private mutating func beginHeaders() {
        state = .headers
        line.removeAll(keepingCapacity: true)
        hasPendingCR = false
        headerCount = 0
        disposition = nil
        contentType = nil
    }

    private mutating func readHeaders(
        _ bytes: UnsafePointer<UInt8>,
        count: Int
    ) throws(HTTPParseError) -> (consumed: Int, event: MultipartEvent?) {
        var index = 0
        while index < count {
            let byte = unsafe bytes[index]
            index += 1
            if hasPendingCR {
                guard byte == ASCII.lf else {
                    throw HTTPParseError(.bareCR, reason: "CR not followed by LF in a part header section")
                }
                hasPendingCR = false
                if line.isEmpty {
                    return (index, .partBegan(try endHeaders()))
                }
                try readHeaderLine()
                line.removeAll(keepingCapacity: true)
            } else if byte == ASCII.cr {
                hasPendingCR = true
            } else if byte == ASCII.lf {
                throw HTTPParseError(.bareLF, reason: "bare LF in a part header section")
            } else {
                guard line.count < limits.maxHeaderLineBytes else {
                    throw HTTPParseError(.partHeaderTooLarge, reason: "part header line longer than maxHeaderLineBytes")
                }
                line.append(byte)
            }
        }
        return (count, nil)
    }

    /// RFC 7578 §4.8 with RFC 5322 §2.2 field syntax, as strict as RFC 9112 §5 is for HTTP.
    private mutating func readHeaderLine() throws(HTTPParseError) {
        headerCount += 1
        guard headerCount <= limits.maxHeaderCount else {
            throw HTTPParseError(.tooManyPartHeaders, reason: "more part header lines than maxHeaderCount")
        }
        if let first = line.first, ByteClass.isWhitespace(first) {
            throw HTTPParseError(.obsFold, reason: "folded part header line")
        }
        // A boundary may contain ":", which would make a delimiter line look like a field.
        if line.starts(with: delimiter[2...]) {
            throw HTTPParseError(.invalidHeader, reason: "delimiter inside a part header section")
        }
        guard let colon = line.firstIndex(of: ASCII.colon), colon > 0 else {
            throw HTTPParseError(.invalidHeader, reason: "part header line without a field name and colon")
        }
        if ByteClass.isWhitespace(line[colon - 1]) {
            throw HTTPParseError(.whitespaceBeforeColon, reason: "whitespace before the colon of a part header")
        }
        guard line[..<colon].allSatisfy(ByteClass.isTchar) else {
            throw HTTPParseError(.invalidHeader, reason: "part header name is not a token")
        }
        var valueStart = colon + 1
        var valueEnd = line.count
        while valueStart < valueEnd && ByteClass.isWhitespace(line[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart && ByteClass.isWhitespace(line[valueEnd - 1]) { valueEnd -= 1 }
        let value = Array(line[valueStart..<valueEnd])
        guard value.allSatisfy({ ByteClass.isFieldVchar($0) || ByteClass.isWhitespace($0) }) else {
            throw HTTPParseError(.invalidHeader, reason: "control character in a part header value")
        }
        switch HeaderParameters.lowercased(Array(line[..<colon])) {
        case "content-disposition":
            disposition = value
        case "content-type":
            // Kept as the client wrote it, whatever it says (the reference passes it on unread);
            // non-ASCII bytes are refused because the forwarded header is written from it.
            guard value.allSatisfy({ $0 < 0x80 }) else {
                throw HTTPParseError(.invalidHeader, reason: "part Content-Type is not ASCII")
            }
            // The first one counts, as in the reference's headers.
            if contentType == nil { contentType = String(decoding: value, as: UTF8.self) }
        default:
            break
        }
    }

    private mutating func endHeaders() throws(HTTPParseError) -> MultipartPartHead {
        let disposition = try ContentDisposition.parse(disposition)
        let head = MultipartPartHead(name: disposition.name, filename: disposition.filename, contentType: contentType)
        state = .content
        matched = 0
        contentBytes = 0
        contentLimit = head.isFile ? limits.maxFileBytes : limits.maxFieldBytes
        line.removeAll(keepingCapacity: true)
        return head
    }
}
