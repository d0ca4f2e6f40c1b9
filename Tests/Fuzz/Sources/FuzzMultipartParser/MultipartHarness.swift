import AppNativeHTTP

// Unsafe (harness): the input is libFuzzer's buffer, valid for the `run` call and read within its
// count; buffers handed to the parsers are borrowed for their call and copied before they are kept.

/// The multipart parser must reach the same events and verdict however the body is split
/// (docs/style.md §6), and never crash.
///
/// Input: one byte choosing the splits, then the request Content-Type up to the first LF, then
/// the body. The body is fed whole, as two chunks split at `body.count * byte / 255`, and in
/// chunks of `1 + byte % 13` bytes, each chunk in its own buffer, calling `parse` until a call
/// consumes everything and returns no event, then `finish()`. All feedings must give the same
/// parts (head, content, completeness; content only without an error), the same `finished`
/// and the same error (code and status). The parser must keep its calling contract (consume within bounds, index content
/// inside the consumed bytes, events in order) and hold back at most one delimiter plus one
/// byte.
enum MultipartHarness {
    /// Small limits, so mutations reach every limit path.
    static let limits = MultipartLimits(
        maxParts: 8,
        maxHeaderLineBytes: 256,
        maxHeaderCount: 8,
        maxFieldBytes: 1024,
        maxFileBytes: 4096
    )

    struct Part: Equatable {
        var head: MultipartPartHead
        var content: [UInt8] = []
        var isComplete = false
    }

    struct Outcome: Equatable {
        var parts: [Part] = []
        var isFinished = false
        var error: HTTPParseError?
        var errorStatus: Int?

        /// After an error, how much content was handed on first depends on where the chunks
        /// ended, so only part heads and completeness are compared then.
        static func == (lhs: Outcome, rhs: Outcome) -> Bool {
            lhs.isFinished == rhs.isFinished && lhs.error == rhs.error && lhs.errorStatus == rhs.errorStatus
                && (lhs.error == nil ? lhs.parts == rhs.parts : lhs.withoutContent == rhs.withoutContent)
        }

        private var withoutContent: [Part] { parts.map { Part(head: $0.head, isComplete: $0.isComplete) } }
    }

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let splitByte = unsafe input.first else { return }
        let rest = unsafe Array(input.dropFirst())
        guard let newline = rest.firstIndex(of: 0x0A) else { return }
        let contentType = String(decoding: rest[..<newline], as: UTF8.self)
        let boundary: MultipartBoundary
        do {
            boundary = try MultipartBoundary(contentType: contentType)
        } catch {
            check(error.status == 400, "Content-Type refusal with status \(error.status)")
            return
        }
        let body = Array(rest[(newline + 1)...])
        let split = body.count * Int(splitByte) / 255
        let chunkSize = 1 + Int(splitByte) % 13
        let chunked = stride(from: 0, to: body.count, by: chunkSize).map { Array(body[$0..<min($0 + chunkSize, body.count)]) }
        let whole = feed([body], boundary)
        let halves = feed([Array(body[..<split]), Array(body[split...])], boundary)
        let small = feed(chunked, boundary)
        check(whole == halves, "split at \(split) of \(body.count) changes the outcome: \(describe(whole)) vs \(describe(halves))")
        check(whole == small, "chunks of \(chunkSize) change the outcome: \(describe(whole)) vs \(describe(small))")
        if let error = whole.error {
            check(error.status == 400 || error.status == 413, "status \(error.status)")
            check(!whole.isFinished, "finished, then refused")
        }
    }

    static func feed(_ chunks: [[UInt8]], _ boundary: MultipartBoundary) -> Outcome {
        var parser = MultipartParser(boundary: boundary, limits: limits)
        let maxHeld = boundary.value.utf8.count + 5
        var outcome = Outcome()
        for chunk in chunks {
            let failed = unsafe chunk.withUnsafeBytes { buffer -> Bool in
                var position = 0
                var calls = 0
                while true {
                    calls += 1
                    check(calls <= buffer.count + 16, "parser loops without progress at \(position) of \(buffer.count)")
                    let rest = unsafe UnsafeRawBufferPointer(rebasing: buffer[position...])
                    let step: (consumed: Int, event: MultipartEvent?)
                    do throws(HTTPParseError) {
                        step = unsafe try parser.parse(rest)
                    } catch {
                        outcome.error = error
                        outcome.errorStatus = error.status
                        return true
                    }
                    check((0...rest.count).contains(step.consumed), "consumed \(step.consumed) of \(rest.count)")
                    if let event = step.event {
                        unsafe record(event, &outcome, rest, step.consumed, maxHeld)
                    } else {
                        check(step.consumed == rest.count, "no event with \(rest.count - step.consumed) bytes unconsumed")
                        return false
                    }
                    position += step.consumed
                }
            }
            if failed { return outcome }
        }
        do throws(HTTPParseError) {
            if let event = try parser.finish() {
                unsafe record(event, &outcome, UnsafeRawBufferPointer(start: nil, count: 0), 0, maxHeld)
            }
        } catch {
            outcome.error = error
            outcome.errorStatus = error.status
        }
        return outcome
    }

    static func record(_ event: MultipartEvent, _ outcome: inout Outcome, _ rest: UnsafeRawBufferPointer, _ consumed: Int, _ maxHeld: Int) {
        let isInPart = outcome.parts.last.map { !$0.isComplete } ?? false
        check(!outcome.isFinished, "event after finished")
        switch event {
        case .partBegan(let head):
            check(!isInPart, "part began inside a part")
            outcome.parts.append(Part(head: head))
        case .content(let range):
            check(isInPart && range.lowerBound >= 0 && range.upperBound <= consumed && !range.isEmpty, "content range \(range) of \(consumed)")
            unsafe outcome.parts[outcome.parts.count - 1].content += rest[range]
        case .heldContent(let bytes):
            check(isInPart && consumed == 0 && !bytes.isEmpty && bytes.count <= maxHeld, "held \(bytes.count) bytes, consumed \(consumed)")
            outcome.parts[outcome.parts.count - 1].content += bytes
        case .partEnded:
            check(isInPart, "part ended outside a part")
            outcome.parts[outcome.parts.count - 1].isComplete = true
        case .finished:
            check(!isInPart, "finished inside a part")
            outcome.isFinished = true
        }
    }

    static func describe(_ outcome: Outcome) -> String {
        let parts = outcome.parts.map { "\($0.head.name) \($0.content.count) bytes complete \($0.isComplete)" }
        return "\(parts) finished \(outcome.isFinished) error \(outcome.error.map { "\($0) (\($0.status))" } ?? "none")"
    }
}

/// `precondition` that also reports its message in optimized builds (which drop it), so a crash
/// found by libFuzzer explains itself in the log.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
