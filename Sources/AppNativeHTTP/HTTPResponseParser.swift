// Unsafe (the parser's input): `parse` takes the caller's buffer for one call; every step reads
// `bytes[i]` only for `i < count` (or `end`) of that buffer, a head split across calls is copied into
// HeadReader's own buffer, and events carry index ranges, not pointers. See docs/memory-safety.md.

/// An incremental, strict HTTP/1.1 response parser (RFC 9112) for reading upstream responses.
///
/// Same calling pattern as `HTTPRequestParser`. Before each request is sent, tell the parser
/// its method with `expectResponse(to:)`: the body length of a response depends on it
/// (RFC 9112 §6.3). The framing it reports:
/// - `.none` for 1xx, 204, 304, any response to HEAD, and a 2xx response to CONNECT;
/// - `.chunked` when Transfer-Encoding is exactly `chunked` (other codings, `chunked` not
///   last, or Transfer-Encoding together with Content-Length are errors: a gateway cannot
///   re-frame them safely);
/// - `.contentLength(n)` for a single valid Content-Length;
/// - `.untilClose` otherwise: the body is every byte until the upstream closes; call `finish()`
///   at end of input to get its `.end`.
///
/// Informational responses are delivered as heads, each followed by `.end`; the final response
/// follows. After a 101 (or a 2xx response to CONNECT) ends, the bytes that follow belong to
/// the new protocol: `hasSwitchedProtocols` becomes true and `parse` consumes nothing more.
///
/// Every error carries status 502: the client is answered Bad Gateway and the upstream
/// connection is closed.
public struct HTTPResponseParser: Sendable {
    /// The limits in force; `maxRequestLineBytes` bounds the status line.
    public let limits: HTTPLimits

    private enum State: Sendable {
        case head
        case endPending
        case fixedBody(remaining: UInt64)
        case chunkedBody
        case untilClose
        case discarding
        case switchedProtocols
        case failed
    }

    private enum RequestMethod: Sendable {
        case head, connect, other
    }

    private var state = State.head
    /// Why the parser failed; kept out of `State` so the hot path copies a small enum.
    private var failure: HTTPParseError?
    private var reader = HeadReader(kind: .response)
    private var chunked = ChunkedBody()
    private var requestMethod = RequestMethod.other
    private var isKeepAlive = true
    private var isInformational = false
    private var switchesProtocols = false

    /// - Parameter limits: the size limits to enforce.
    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// Sets the method of the request whose response comes next. Informational responses keep
    /// it; the final response uses it up, after which a method other than HEAD and CONNECT is
    /// assumed.
    /// - Parameter method: the request method, for example `HEAD`.
    public mutating func expectResponse(to method: String) {
        switch method {
        case "HEAD": requestMethod = .head
        case "CONNECT": requestMethod = .connect
        default: requestMethod = .other
        }
    }

    /// Whether a 101 or a 2xx response to CONNECT has ended; the remaining bytes are not HTTP.
    public var hasSwitchedProtocols: Bool {
        if case .switchedProtocols = state { return true }
        return false
    }

    /// Whether the parser is throwing input away because the last response closed the connection.
    public var isDiscardingInput: Bool {
        if case .discarding = state { return true }
        return false
    }

    /// Consumes bytes from the start of `input` and returns at most one event.
    ///
    /// `(consumed, nil)` means more input is needed (or, once `hasSwitchedProtocols`, that no
    /// more will be consumed).
    /// - Parameter input: bytes received and not consumed by an earlier call.
    /// - Returns: how many bytes of `input` were consumed, and the event they completed.
    /// - Throws: `HTTPParseError` with status 502.
    public mutating func parse(
        _ input: UnsafeRawBufferPointer
    ) throws(HTTPParseError) -> (consumed: Int, event: HTTPParserEvent<HTTPResponseHead>?) {
        do {
            return unsafe try step(input)
        } catch {
            let upstreamError = error.status == 502 ? error : error.asUpstreamError()
            state = .failed
            failure = upstreamError
            throw upstreamError
        }
    }

    /// Reports the end of input (the upstream closed the connection).
    /// - Returns: `.end` when this completes an `untilClose` body (or a pending end), nil when
    ///   the connection closed between messages.
    /// - Throws: `HTTPParseError.Code.truncated` (502) when the close cut a message short.
    public mutating func finish() throws(HTTPParseError) -> HTTPParserEvent<HTTPResponseHead>? {
        switch state {
        case .failed:
            throw failure ?? HTTPParseError(.truncated, status: 502, reason: "parser failed")
        case .head where !reader.hasStarted, .discarding, .switchedProtocols:
            return nil
        case .endPending:
            endMessage()
            return .end(trailers: nil)
        case .untilClose:
            state = .discarding
            return .end(trailers: nil)
        case .head, .fixedBody, .chunkedBody:
            let error = HTTPParseError(.truncated, status: 502, reason: "upstream closed in the middle of a response")
            state = .failed
            failure = error
            throw error
        }
    }

    private mutating func step(
        _ input: UnsafeRawBufferPointer
    ) throws(HTTPParseError) -> (consumed: Int, event: HTTPParserEvent<HTTPResponseHead>?) {
        switch state {
        case .failed:
            throw failure ?? HTTPParseError(.truncated, status: 502, reason: "parser failed")
        case .discarding:
            return (input.count, nil)
        case .switchedProtocols:
            return (0, nil)
        case .endPending:
            endMessage()
            return (0, .end(trailers: nil))
        case .untilClose:
            return unsafe (input.count, input.isEmpty ? nil : .body(0..<input.count))
        case .fixedBody(let remaining):
            guard unsafe !input.isEmpty else { return (0, nil) }
            let taken = Int(min(UInt64(input.count), remaining))
            state = remaining == UInt64(taken) ? .endPending : .fixedBody(remaining: remaining - UInt64(taken))
            return (taken, .body(0..<taken))
        case .head, .chunkedBody:
            guard let base = input.baseAddress, unsafe !input.isEmpty else { return (0, nil) }
            return unsafe try stepBytes(base.assumingMemoryBound(to: UInt8.self), count: input.count)
        }
    }

    private mutating func stepBytes(
        _ bytes: UnsafePointer<UInt8>,
        count: Int
    ) throws(HTTPParseError) -> (consumed: Int, event: HTTPParserEvent<HTTPResponseHead>?) {
        if case .chunkedBody = state {
            let result: (consumed: Int, event: HTTPParserEvent<HTTPResponseHead>?) =
                unsafe try chunked.step(bytes, count: count, reader: &reader, limits: limits)
            if case .end = result.event { endMessage() }
            return result
        }
        guard let end = unsafe try reader.feed(bytes, start: 0, end: count, limits: limits) else { return (count, nil) }
        let limits = self.limits
        let requestMethod = self.requestMethod
        let made = unsafe try reader.withHead(input: bytes, start: 0) { head, scanner throws(HTTPParseError) in
            unsafe try Self.makeHead(head, scanner, limits, requestMethod)
        }
        isKeepAlive = made.isKeepAlive
        isInformational = made.isInformational
        switchesProtocols = made.switchesProtocols
        switch made.framing {
        case .none, .contentLength(0): state = .endPending
        case .contentLength(let length): state = .fixedBody(remaining: length)
        case .chunked:
            chunked = ChunkedBody()
            state = .chunkedBody
        case .untilClose: state = .untilClose
        }
        return (end, .head(made.head, made.framing))
    }

    private struct MadeHead {
        var head: HTTPResponseHead
        var framing: HTTPBodyFraming
        var isKeepAlive: Bool
        var isInformational: Bool
        var switchesProtocols: Bool
    }

    /// RFC 9112 §6.3, in its order, then the strings.
    private static func makeHead(
        _ bytes: UnsafePointer<UInt8>,
        _ scanner: borrowing HeadScanner,
        _ limits: HTTPLimits,
        _ requestMethod: RequestMethod
    ) throws(HTTPParseError) -> MadeHead {
        let fields = scanner.fields
        let status = scanner.status
        // RFC 9110 §15: a status code is 100-599; anything else is not a response we can relay.
        guard (100...599).contains(status) else {
            throw HTTPParseError(.invalidStatusLine, reason: "status code outside 100-599")
        }
        let summary = unsafe FieldSummary(bytes, fields)
        var isInformational = false
        var switchesProtocols = false
        let framing: HTTPBodyFraming
        if status < 200 {
            isInformational = status != 101
            switchesProtocols = status == 101
            framing = .none
        } else if requestMethod == .connect && status < 300 {
            switchesProtocols = true
            framing = .none
        } else if requestMethod == .head || status == 204 || status == 304 {
            framing = .none
        } else if summary.transferEncodingCount > 0 {
            unsafe try FramingRules.checkChunkedOnly(bytes, fields, version: scanner.version)
            if summary.contentLengthCount > 0 {
                throw HTTPParseError(.ambiguousFraming, reason: "both Content-Length and Transfer-Encoding")
            }
            framing = .chunked
        } else if summary.contentLengthCount > 0 {
            framing = unsafe .contentLength(
                try FramingRules.contentLength(bytes, fields, summary, maxBodyBytes: limits.maxBodyBytes)
            )
        } else {
            framing = .untilClose
        }
        let head = unsafe HTTPResponseHead(
            status: status,
            reason: Latin1.string(
                UnsafeBufferPointer(start: bytes + scanner.reasonStart, count: scanner.reasonEnd - scanner.reasonStart),
                containsHighBytes: scanner.reasonHasHighBytes
            ),
            version: scanner.version,
            headers: FieldStrings.headers(bytes, fields)
        )
        return MadeHead(
            head: head,
            framing: framing,
            isKeepAlive: summary.isKeepAlive(scanner.version) && framing != .untilClose,
            isInformational: isInformational,
            switchesProtocols: switchesProtocols
        )
    }

    private mutating func endMessage() {
        reader.reset(kind: .response)
        if switchesProtocols {
            state = .switchedProtocols
        } else if isInformational {
            // The final response to the same request follows; keep the method.
            state = .head
        } else {
            requestMethod = .other
            state = isKeepAlive ? .head : .discarding
        }
        isInformational = false
        switchesProtocols = false
    }
}
