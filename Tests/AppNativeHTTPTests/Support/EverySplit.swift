import AppNativeHTTP
import Testing


/// Runs one input under every split and records an issue for each split whose outcome differs
/// from the whole-buffer outcome, which is returned for the test's own assertions.
enum EverySplit {
    static func request(
        _ raw: String,
        limits: HTTPLimits = HTTPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> FeedOutcome<HTTPRequestHead> {
        run(latin1Bytes(raw), sourceLocation: sourceLocation) { HTTPRequestParser(limits: limits) }.outcome
    }

    /// - Parameter method: passed to `expectResponse(to:)` before feeding.
    static func response(
        _ raw: String,
        to method: String = "GET",
        limits: HTTPLimits = HTTPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> (outcome: FeedOutcome<HTTPResponseHead>, parser: HTTPResponseParser) {
        run(latin1Bytes(raw), callsEndOfInput: true, sourceLocation: sourceLocation) {
            var parser = HTTPResponseParser(limits: limits)
            parser.expectResponse(to: method)
            return parser
        }
    }

    static func run<Parser: FeedableParser>(
        _ bytes: [UInt8],
        callsEndOfInput: Bool = false,
        sourceLocation: SourceLocation,
        makeParser: () -> Parser
    ) -> (outcome: FeedOutcome<Parser.Head>, parser: Parser) where Parser.Head: Equatable {
        var reference: (outcome: FeedOutcome<Parser.Head>, parser: Parser)?
        for split in Split.all(for: bytes.count) {
            var parser = makeParser()
            let outcome = Feeder.feed(bytes, to: &parser, split: split, callsEndOfInput: callsEndOfInput)
            if !outcome.violations.isEmpty {
                Issue.record("[\(split)] \(outcome.violations.joined(separator: "; "))", sourceLocation: sourceLocation)
                break
            }
            guard let expected = reference?.outcome else {
                reference = (outcome, parser)
                continue
            }
            if outcome.messages != expected.messages || outcome.error != expected.error
                || outcome.error?.status != expected.error?.status
            {
                Issue.record(
                    "[\(split)] differs from the whole-buffer parse: \(describe(outcome)) vs \(describe(expected))",
                    sourceLocation: sourceLocation
                )
                break
            }
        }
        return reference ?? (FeedOutcome(), makeParser())
    }

    static func describe<Head>(_ outcome: FeedOutcome<Head>) -> String {
        let messages = outcome.messages.map { "\($0.framing) body \($0.body.count) complete \($0.isComplete)" }
        return "\(messages) error \(outcome.error.map { "\($0)" } ?? "none")"
    }
}
