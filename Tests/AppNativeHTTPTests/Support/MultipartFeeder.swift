import AppNativeHTTP
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// One part as the events described it.
struct ParsedPart: Equatable {
    var head: MultipartPartHead
    var content: [UInt8] = []
    var isComplete = false
}

/// Everything one feeding of a multipart body produced.
struct MultipartOutcome: Equatable {
    var parts: [ParsedPart] = []
    var isFinished = false
    var error: HTTPParseError?
    /// The error's status, compared too (HTTPParseError equality is by code only).
    var errorStatus: Int?
    /// Contract violations seen while feeding (event order, ranges, stalls), as readable lines.
    var violations: [String] = []
    /// The longest `.heldContent` seen.
    var longestHeld = 0

    /// Equal verdicts and parts. After an error, how much content was handed on first depends
    /// on where the chunks ended (a limit is noticed when a range is about to be handed on), so
    /// only the part heads and completeness are compared then.
    static func == (lhs: MultipartOutcome, rhs: MultipartOutcome) -> Bool {
        lhs.isFinished == rhs.isFinished && lhs.error == rhs.error && lhs.errorStatus == rhs.errorStatus
            && lhs.violations == rhs.violations
            && (lhs.error == nil ? lhs.parts == rhs.parts : lhs.partsWithoutContent == rhs.partsWithoutContent)
    }

    private var partsWithoutContent: [ParsedPart] { parts.map { ParsedPart(head: $0.head, isComplete: $0.isComplete) } }

    var summary: String {
        let parts = self.parts.map { "\($0.head.name)(\($0.content.count) bytes\($0.isComplete ? "" : ", open"))" }
        return "\(parts) finished \(isFinished) error \(error.map { "\($0)" } ?? "none")"
    }
}

enum MultipartFeeder {
    /// Feeds `bytes` in chunks of `split.sizes`, each chunk in its own array, calling `parse`
    /// until a call consumes everything and returns no event, then `finish()`.
    static func feed(_ bytes: [UInt8], to parser: inout MultipartParser, split: Split) -> MultipartOutcome {
        var outcome = MultipartOutcome()
        var offset = 0
        for size in split.sizes {
            let chunk = Array(bytes[offset..<(offset + size)])
            offset += size
            unsafe chunk.withUnsafeBytes { buffer in
                var position = 0
                var calls = 0
                while true {
                    calls += 1
                    if calls > buffer.count + 16 {
                        outcome.violations.append("parser looped without progress at \(position)")
                        return
                    }
                    let rest = unsafe UnsafeRawBufferPointer(rebasing: buffer[position...])
                    let step: (consumed: Int, event: MultipartEvent?)
                    do throws(HTTPParseError) {
                        step = unsafe try parser.parse(rest)
                    } catch {
                        outcome.error = error
                        outcome.errorStatus = error.status
                        return
                    }
                    guard (0...rest.count).contains(step.consumed) else {
                        outcome.violations.append("consumed \(step.consumed) of \(rest.count)")
                        return
                    }
                    if let event = step.event {
                        unsafe record(event, in: &outcome, rest: rest, consumed: step.consumed)
                    } else if step.consumed != rest.count {
                        outcome.violations.append("no event with \(rest.count - step.consumed) bytes unconsumed")
                        return
                    }
                    position += step.consumed
                    if step.event == nil { return }
                }
            }
            if outcome.error != nil || !outcome.violations.isEmpty { return outcome }
        }
        do throws(HTTPParseError) {
            if let event = try parser.finish() {
                unsafe record(event, in: &outcome, rest: UnsafeRawBufferPointer(start: nil, count: 0), consumed: 0)
            }
        } catch {
            outcome.error = error
            outcome.errorStatus = error.status
        }
        return outcome
    }

    private static func record(
        _ event: MultipartEvent,
        in outcome: inout MultipartOutcome,
        rest: UnsafeRawBufferPointer,
        consumed: Int
    ) {
        let isInPart = outcome.parts.last.map { !$0.isComplete } ?? false
        if outcome.isFinished { outcome.violations.append("event after finished") }
        switch event {
        case .partBegan(let head):
            if isInPart { outcome.violations.append("part began inside a part") }
            outcome.parts.append(ParsedPart(head: head))
        case .content(let range):
            guard isInPart, range.lowerBound >= 0, range.upperBound <= consumed, !range.isEmpty else {
                outcome.violations.append("content range \(range) of \(consumed) consumed, in part: \(isInPart)")
                return
            }
            unsafe outcome.parts[outcome.parts.count - 1].content += rest[range]
        case .heldContent(let bytes):
            guard isInPart, !bytes.isEmpty, consumed == 0 else {
                outcome.violations.append("held content of \(bytes.count) bytes, consumed \(consumed), in part: \(isInPart)")
                return
            }
            outcome.longestHeld = max(outcome.longestHeld, bytes.count)
            outcome.parts[outcome.parts.count - 1].content += bytes
        case .partEnded:
            if !isInPart { outcome.violations.append("part ended outside a part") }
            if let last = outcome.parts.indices.last { outcome.parts[last].isComplete = true }
        case .finished:
            if isInPart { outcome.violations.append("finished inside a part") }
            outcome.isFinished = true
        }
    }

    /// Feeds under every split; records an issue (prefixed with `label`) for each split whose
    /// outcome differs from the whole-buffer one, which is returned.
    static func everySplit(
        _ bytes: [UInt8],
        label: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        makeParser: () -> MultipartParser
    ) -> MultipartOutcome {
        var reference: MultipartOutcome?
        for split in Split.all(for: bytes.count) {
            var parser = makeParser()
            let outcome = feed(bytes, to: &parser, split: split)
            guard let expected = reference else {
                reference = outcome
                continue
            }
            if outcome != expected {
                let difference = "\(outcome.summary) \(outcome.violations) vs \(expected.summary)"
                Issue.record("\(label) [\(split)] differs from the whole-buffer parse: \(difference)", sourceLocation: sourceLocation)
                break
            }
        }
        return reference ?? MultipartOutcome()
    }
}
