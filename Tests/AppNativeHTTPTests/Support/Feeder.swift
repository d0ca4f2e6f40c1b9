import AppNativeHTTP

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// A parser the feeder can drive.
protocol FeedableParser {
    associatedtype Head: Sendable
    mutating func parse(_ input: UnsafeRawBufferPointer) throws(HTTPParseError) -> (consumed: Int, event: HTTPParserEvent<Head>?)
    /// Called after the last chunk, for parsers that need to hear about end of input.
    mutating func endOfInput() throws(HTTPParseError) -> HTTPParserEvent<Head>?
}

extension HTTPRequestParser: FeedableParser {
    mutating func endOfInput() throws(HTTPParseError) -> HTTPParserEvent<HTTPRequestHead>? { nil }
}

extension HTTPResponseParser: FeedableParser {
    mutating func endOfInput() throws(HTTPParseError) -> HTTPParserEvent<HTTPResponseHead>? { try finish() }
}

/// One message as the events described it.
struct ParsedMessage<Head: Sendable> {
    var head: Head
    var framing: HTTPBodyFraming
    var body: [UInt8] = []
    var trailers: HTTPHeaders?
    var isComplete = false
    /// Offset in the whole input just past the message, once it is complete.
    var endOffset: Int?
}

/// Everything one feeding produced.
struct FeedOutcome<Head: Sendable> {
    var messages: [ParsedMessage<Head>] = []
    var error: HTTPParseError?
    /// Contract violations seen while feeding (event shapes, ranges, stalls), as readable lines.
    var violations: [String] = []
    /// Bytes consumed in total.
    var consumed = 0
}

enum Feeder {
    /// Feeds `bytes` to `parser` in chunks of `split.sizes`, each chunk in its own buffer, calling
    /// `parse` until a call consumes everything and returns no event, as a server would.
    static func feed<Parser: FeedableParser>(
        _ bytes: [UInt8],
        to parser: inout Parser,
        split: Split,
        callsEndOfInput: Bool = false
    ) -> FeedOutcome<Parser.Head> {
        var outcome = FeedOutcome<Parser.Head>()
        var offset = 0
        for size in split.sizes {
            // A fresh array per chunk: body ranges must index this chunk, nothing else.
            let chunk = Array(bytes[offset..<(offset + size)])
            offset += size
            // The closure is not typed-throws: the compiler cannot yet reabstract typed-throws
            // closures passed to rethrowing APIs.
            unsafe chunk.withUnsafeBytes { buffer in
                var position = 0
                var calls = 0
                while true {
                    calls += 1
                    if calls > buffer.count + 16 {
                        outcome.violations.append("parser looped without progress at chunk offset \(position)")
                        return
                    }
                    let rest = unsafe UnsafeRawBufferPointer(rebasing: buffer[position...])
                    let consumed: Int
                    let event: HTTPParserEvent<Parser.Head>?
                    do throws(HTTPParseError) {
                        (consumed, event) = unsafe try parser.parse(rest)
                    } catch {
                        outcome.error = error
                        return
                    }
                    if consumed < 0 || consumed > rest.count {
                        outcome.violations.append("consumed \(consumed) of \(rest.count) bytes")
                        return
                    }
                    if let event {
                        record(event, in: &outcome, chunk: chunk, base: position, consumed: consumed)
                        if case .end = event, let last = outcome.messages.indices.last {
                            outcome.messages[last].endOffset = outcome.consumed + consumed
                        }
                    }
                    position += consumed
                    outcome.consumed += consumed
                    if event == nil {
                        if position != buffer.count {
                            outcome.violations.append("returned no event with \(buffer.count - position) bytes unconsumed")
                        }
                        return
                    }
                }
            }
            if outcome.error != nil { return outcome }
        }
        if callsEndOfInput {
            do throws(HTTPParseError) {
                if let event = try parser.endOfInput() {
                    record(event, in: &outcome, chunk: [], base: 0, consumed: 0)
                    if case .end = event, let last = outcome.messages.indices.last {
                        outcome.messages[last].endOffset = outcome.consumed
                    }
                }
            } catch {
                outcome.error = error
            }
        }
        return outcome
    }

    private static func record<Head>(
        _ event: HTTPParserEvent<Head>,
        in outcome: inout FeedOutcome<Head>,
        chunk: [UInt8],
        base: Int,
        consumed: Int
    ) {
        switch event {
        case .head(let head, let framing):
            if let last = outcome.messages.last, !last.isComplete {
                outcome.violations.append("head before the previous message ended")
            }
            outcome.messages.append(ParsedMessage(head: head, framing: framing))
        case .body(let range):
            guard range.lowerBound >= 0, range.upperBound <= consumed, !range.isEmpty else {
                outcome.violations.append("body range \(range) outside the \(consumed) consumed bytes, or empty")
                return
            }
            guard let last = outcome.messages.indices.last, !outcome.messages[last].isComplete else {
                outcome.violations.append("body outside a message")
                return
            }
            outcome.messages[last].body += chunk[(base + range.lowerBound)..<(base + range.upperBound)]
        case .end(let trailers):
            guard let last = outcome.messages.indices.last, !outcome.messages[last].isComplete else {
                outcome.violations.append("end outside a message")
                return
            }
            outcome.messages[last].trailers = trailers
            outcome.messages[last].isComplete = true
        }
    }
}

extension ParsedMessage: Equatable where Head: Equatable {}
