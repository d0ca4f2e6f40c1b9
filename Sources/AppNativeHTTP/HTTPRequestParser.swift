// Unsafe (the parser's input): `parse` takes the caller's buffer for one call; every step reads
// `bytes[i]` only for `i < count` (or `end`) of that buffer, a head split across calls is copied into
// HeadReader's own buffer, and events carry index ranges, not pointers. See docs/memory-safety.md.

/// An incremental, strict HTTP/1.1 request parser (RFC 9112) for a server or reverse proxy.
///
/// Feed it bytes as they arrive; it returns one event at a time and never copies a head or a
/// body that arrives in one piece. It refuses, rather than repairs, everything that lets two
/// parsers disagree about where a request ends: obs-fold, bare CR or LF, whitespace before a
/// colon, Content-Length with Transfer-Encoding, any coding but a single final `chunked`,
/// malformed or repeated Content-Length, missing or repeated Host, repeated Authorization.
///
/// Policy choices (see also `HTTPParseError.Code`):
/// - Methods outside `allowedMethods` get 501 (CONNECT is refused on purpose); TRACE gets 405.
/// - `HTTP/1.x` with x > 1 is processed as HTTP/1.1 and reported as received; other major
///   versions get 505.
/// - Empty lines before the request line are skipped (RFC 9112 §2.2), up to
///   `maxRequestLineBytes` of them.
/// - After a request that does not keep the connection alive (`Connection: close`, or HTTP/1.0
///   without keep-alive) has ended, further input is discarded unparsed (RFC 9112 §9.6).
/// - Errors are sticky: once `parse` has thrown, it throws the same error again. Answer with
///   `error.status` and close the connection.
///
/// Usage: call `parse` with the unconsumed input until it has consumed everything and returned
/// no event, handling each event as it comes. `.body` ranges index the buffer of that call.
public struct HTTPRequestParser: Sendable {
    /// The methods this parser accepts; any other token gets 501 (RFC 9110 §9.1).
    public static let allowedMethods: [String] = AllowedMethod.names

    /// The limits in force.
    public let limits: HTTPLimits

    private enum State: Sendable {
        case head
        case endPending
        case fixedBody(remaining: UInt64)
        case chunkedBody
        case discarding
        case failed
    }

    private var state = State.head
    /// Why the parser failed; kept out of `State` so the hot path copies a small enum.
    private var failure: HTTPParseError?
    private var reader = HeadReader(kind: .request)
    private var chunked = ChunkedBody()
    private var isKeepAlive = true
    private var hasPendingLeadingCR = false
    private var leadingLineBytes = 0

    /// - Parameter limits: the size limits to enforce.
    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// Whether the parser is throwing input away because the last request closed the connection.
    public var isDiscardingInput: Bool {
        if case .discarding = state { return true }
        return false
    }

    /// Consumes bytes from the start of `input` and returns at most one event.
    ///
    /// `(consumed, nil)` means more input is needed; `consumed` may be positive when part of a
    /// head was buffered or chunk framing was read. After `.end` the parser expects the next
    /// (pipelined) request.
    /// - Parameter input: bytes received and not consumed by an earlier call.
    /// - Returns: how many bytes of `input` were consumed, and the event they completed.
    /// - Throws: `HTTPParseError` with the status to answer (400, 413, 414, 431, 501 or 505).
    public mutating func parse(
        _ input: UnsafeRawBufferPointer
    ) throws(HTTPParseError) -> (consumed: Int, event: HTTPParserEvent<HTTPRequestHead>?) {
        do {
            return unsafe try step(input)
        } catch {
            state = .failed
            failure = error
            throw error
        }
    }

    private mutating func step(
        _ input: UnsafeRawBufferPointer
    ) throws(HTTPParseError) -> (consumed: Int, event: HTTPParserEvent<HTTPRequestHead>?) {
        switch state {
        case .failed:
            throw failure ?? HTTPParseError(.invalidRequestLine, reason: "parser failed")
        case .discarding:
            return (input.count, nil)
        case .endPending:
            endMessage()
            return (0, .end(trailers: nil))
        case .fixedBody(let remaining):
            guard unsafe !input.isEmpty else { return (0, nil) }
            let taken = Int(min(UInt64(input.count), remaining))
            state = remaining == UInt64(taken) ? .endPending : .fixedBody(remaining: remaining - UInt64(taken))
            return (taken, .body(0..<taken))
        case .head, .chunkedBody:
            guard let base = input.baseAddress, unsafe !input.isEmpty else { return (0, nil) }
            let bytes = unsafe base.assumingMemoryBound(to: UInt8.self)
            return unsafe try stepBytes(bytes, count: input.count)
        }
    }

    private mutating func stepBytes(
        _ bytes: UnsafePointer<UInt8>,
        count: Int
    ) throws(HTTPParseError) -> (consumed: Int, event: HTTPParserEvent<HTTPRequestHead>?) {
        if case .chunkedBody = state {
            let result: (consumed: Int, event: HTTPParserEvent<HTTPRequestHead>?) =
                unsafe try chunked.step(bytes, count: count, reader: &reader, limits: limits)
            if case .end = result.event { endMessage() }
            return result
        }
        return unsafe try stepHead(bytes, count: count)
    }

    private mutating func stepHead(
        _ bytes: UnsafePointer<UInt8>,
        count: Int
    ) throws(HTTPParseError) -> (consumed: Int, event: HTTPParserEvent<HTTPRequestHead>?) {
        var start = 0
        if !reader.hasStarted {
            // RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request line.
            while start < count {
                let byte = unsafe bytes[start]
                if hasPendingLeadingCR {
                    guard byte == ASCII.lf else {
                        throw HTTPParseError(.bareCR, reason: "CR not followed by LF before the request line")
                    }
                    hasPendingLeadingCR = false
                } else if byte == ASCII.cr {
                    leadingLineBytes += 2
                    guard leadingLineBytes <= limits.maxRequestLineBytes else {
                        throw HTTPParseError(.invalidRequestLine, reason: "too many empty lines before the request line")
                    }
                    hasPendingLeadingCR = true
                } else if byte == ASCII.lf {
                    throw HTTPParseError(.bareLF, reason: "bare LF before the request line")
                } else {
                    break
                }
                start += 1
            }
            if start == count { return (count, nil) }
        }
        guard let end = unsafe try reader.feed(bytes, start: start, end: count, limits: limits) else { return (count, nil) }
        let limits = self.limits
        let (head, framing, keepsAlive) = unsafe try reader.withHead(input: bytes, start: start) {
            head, scanner throws(HTTPParseError) in unsafe try Self.makeHead(head, scanner, limits)
        }
        isKeepAlive = keepsAlive
        switch framing {
        case .none, .contentLength(0): state = .endPending
        case .contentLength(let length): state = .fixedBody(remaining: length)
        case .chunked, .untilClose:
            chunked = ChunkedBody()
            state = .chunkedBody
        }
        return (end, .head(head, framing))
    }

    /// Applies the rules that need the whole head, then builds its strings.
    private static func makeHead(
        _ bytes: UnsafePointer<UInt8>,
        _ scanner: borrowing HeadScanner,
        _ limits: HTTPLimits
    ) throws(HTTPParseError) -> (HTTPRequestHead, HTTPBodyFraming, isKeepAlive: Bool) {
        let fields = scanner.fields
        let version = scanner.version
        let summary = unsafe FieldSummary(bytes, fields)

        // RFC 9112 §3.2: 400 for a missing (HTTP/1.1), repeated or invalid Host.
        if summary.hostCount > 1 {
            throw HTTPParseError(.duplicateHost, reason: "more than one Host field line")
        }
        if summary.hostCount == 0 && version.hasHTTP11Semantics {
            throw HTTPParseError(.missingHost, reason: "HTTP/1.1 request without Host")
        }
        if unsafe summary.hostCount == 1 && !HostSyntax.isValid(FieldSummary.value(bytes, fields[summary.hostIndex]).span) {
            throw HTTPParseError(.invalidHost, reason: "Host is not uri-host [\":\" port]")
        }
        // Gateway policy: an absolute-form target names the host the request is for (RFC 9112
        // §3.2.2), while the Origin rule, the redirect URI and the access log read Host. A request
        // whose two names disagree would be judged for one host and forwarded for another.
        if summary.hostCount == 1, unsafe bytes[scanner.targetStart] != ASCII.slash,
            case .absolute(let authority, _) = unsafe try RequestTargetForm.classify(
                UnsafeBufferPointer(start: bytes + scanner.targetStart, count: scanner.targetEnd - scanner.targetStart),
                method: scanner.method
            ),
            unsafe !Self.equalsIgnoringCase(
                UnsafeBufferPointer(start: bytes + scanner.targetStart + authority.lowerBound, count: authority.count),
                FieldSummary.value(bytes, fields[summary.hostIndex])
            )
        {
            throw HTTPParseError(.authorityMismatch, reason: "absolute-form target names another authority than Host")
        }
        // Gateway policy: two credentials would let the gateway and the upstream authenticate different ones.
        if summary.authorizationCount > 1 {
            throw HTTPParseError(.duplicateAuthorization, reason: "more than one Authorization field line")
        }

        let framing: HTTPBodyFraming
        if summary.transferEncodingCount > 0 {
            unsafe try FramingRules.checkChunkedOnly(bytes, fields, version: version)
            if summary.contentLengthCount > 0 {
                throw HTTPParseError(.ambiguousFraming, reason: "both Content-Length and Transfer-Encoding")
            }
            framing = .chunked
        } else if summary.contentLengthCount > 0 {
            framing = unsafe .contentLength(
                try FramingRules.contentLength(bytes, fields, summary, maxBodyBytes: limits.maxBodyBytes)
            )
        } else {
            framing = .none
        }

        let head = unsafe HTTPRequestHead(
            method: scanner.method,
            target: FieldStrings.ascii(bytes, scanner.targetStart..<scanner.targetEnd),
            version: version,
            headers: FieldStrings.headers(bytes, fields)
        )
        return (head, framing, summary.isKeepAlive(version))
    }

    /// ASCII case-insensitive equality of two host names (RFC 9110 §4.2.3).
    private static func equalsIgnoringCase(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count where unsafe ByteClass.lowercased(lhs[index]) != ByteClass.lowercased(rhs[index]) { return false }
        return true
    }

    /// Readies the parser for the next request, or for discarding when the connection closes.
    private mutating func endMessage() {
        reader.reset(kind: .request)
        hasPendingLeadingCR = false
        leadingLineBytes = 0
        state = isKeepAlive ? .head : .discarding
    }
}
