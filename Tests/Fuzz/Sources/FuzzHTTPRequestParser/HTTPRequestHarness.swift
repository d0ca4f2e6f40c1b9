import AppNativeHTTP

// Unsafe (harness): the input is libFuzzer's buffer, valid for the `run` call and read within its
// count; buffers handed to the parsers are borrowed for their call and copied before they are kept.

/// The request parser must reach the same verdict however the input is split (docs/style.md §6).
///
/// Input: the first byte chooses a split point in the rest (`rest.count * byte / 255`); the rest
/// is fed once whole and once as two chunks, each chunk in its own buffer, calling `parse` until
/// a call consumes everything and returns no event (as the server does). Both feedings must give
/// the same messages (head, framing, de-chunked body, trailers, completeness), the same error
/// (code and status) and, without an error, the same number of consumed bytes. The parser must also keep its
/// calling contract: consume within bounds, make progress, and index body ranges inside the
/// bytes it consumed.
enum HTTPRequestHarness {
    /// Small limits, so mutations reach every limit path; the verdict must not depend on them
    /// being reached in one chunk or two.
    static let limits = HTTPLimits(maxRequestLineBytes: 256, maxHeaderBytes: 1024, maxHeaderCount: 16, maxBodyBytes: 4096)

    struct Message: Equatable {
        var head: HTTPRequestHead
        var framing: HTTPBodyFraming
        var body: [UInt8] = []
        var trailers: HTTPHeaders?
        var isComplete = false
    }

    struct Outcome: Equatable {
        var messages: [Message] = []
        var error: HTTPParseError?
        var errorStatus: Int?
        var consumed = 0
        var isDiscarding = false
    }

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let splitByte = unsafe input.first else { return }
        let bytes = unsafe Array(input.dropFirst())
        let split = bytes.count * Int(splitByte) / 255
        let whole = feed([bytes])
        let halves = feed([Array(bytes[..<split]), Array(bytes[split...])])
        check(
            whole == halves,
            "split at \(split) of \(bytes.count) changes the verdict: whole \(describe(whole)), split \(describe(halves))"
        )
        TraceContextChecks.run(raw: bytes, heads: whole.messages.map(\.head))
    }

    static func feed(_ chunks: [[UInt8]]) -> Outcome {
        var parser = HTTPRequestParser(limits: limits)
        var outcome = Outcome()
        for chunk in chunks {
            let failed = unsafe chunk.withUnsafeBytes { buffer -> Bool in
                var position = 0
                var calls = 0
                while true {
                    calls += 1
                    check(calls <= buffer.count + 16, "parser loops without progress at \(position) of \(buffer.count)")
                    let rest = unsafe UnsafeRawBufferPointer(rebasing: buffer[position...])
                    let step: (consumed: Int, event: HTTPParserEvent<HTTPRequestHead>?)
                    do throws(HTTPParseError) {
                        step = unsafe try parser.parse(rest)
                    } catch {
                        outcome.error = error
                        outcome.errorStatus = error.status
                        // Where an error is noticed depends on what was buffered; only the verdict counts.
                        outcome.consumed = -1
                        return true
                    }
                    check((0...rest.count).contains(step.consumed), "consumed \(step.consumed) of \(rest.count)")
                    switch step.event {
                    case .head(let head, let framing)?:
                        check(outcome.messages.last?.isComplete ?? true, "head before the previous message ended")
                        outcome.messages.append(Message(head: head, framing: framing))
                    case .body(let range)?:
                        check(range.lowerBound >= 0 && range.upperBound <= step.consumed && !range.isEmpty, "body range \(range) of \(step.consumed)")
                        check(outcome.messages.last.map { !$0.isComplete } ?? false, "body outside a message")
                        unsafe outcome.messages[outcome.messages.count - 1].body += rest[range]
                    case .end(let trailers)?:
                        check(outcome.messages.last.map { !$0.isComplete } ?? false, "end outside a message")
                        outcome.messages[outcome.messages.count - 1].trailers = trailers
                        outcome.messages[outcome.messages.count - 1].isComplete = true
                    case nil:
                        break
                    }
                    position += step.consumed
                    outcome.consumed += step.consumed
                    if step.event == nil {
                        check(position == buffer.count, "no event with \(buffer.count - position) bytes unconsumed")
                        return false
                    }
                }
            }
            if failed { break }
        }
        outcome.isDiscarding = parser.isDiscardingInput
        return outcome
    }

    static func describe(_ outcome: Outcome) -> String {
        let messages = outcome.messages.map { "\($0.head.method) \($0.head.target) \($0.framing) body \($0.body.count) complete \($0.isComplete)" }
        return "\(messages) error \(outcome.error.map { "\($0) (\($0.status))" } ?? "none") consumed \(outcome.consumed)"
    }
}

/// `precondition` that also reports its message in optimized builds (which drop it), so a crash
/// found by libFuzzer explains itself in the log.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

func failCheck(_ message: @autoclosure () -> String) -> Never {
    fatalError(message())
}
