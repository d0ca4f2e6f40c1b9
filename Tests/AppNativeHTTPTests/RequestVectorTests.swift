import AppNativeHTTP
import AppNativeTesting
import Testing

/// The shared HTTP/1.1 request vectors (Fixtures/vectors/http1), fed under every split.
@Suite("Request vectors")
struct RequestVectorTests {
    static let limits = HTTPLimits(
        maxRequestLineBytes: RequestVector.limits.maxRequestLineBytes,
        maxHeaderBytes: RequestVector.limits.maxHeaderBytes,
        maxHeaderCount: RequestVector.limits.maxHeaderCount,
        maxBodyBytes: RequestVector.limits.maxBodyBytes
    )

    @Test("the vector file is complete and every pinned verdict is one it allows")
    func vectorFile() throws {
        let vectors = try RequestVector.all()
        #expect(vectors.count == 123)
        #expect(Set(vectors.map(\.id)).count == vectors.count, "case ids are unique")
        for vector in vectors {
            let allowed = [vector.verdict] + (vector.alsoAcceptable ?? [])
            #expect(allowed.contains(vector.pinnedVerdict), "\(vector.id): pinned \(vector.pinnedVerdict) not in \(allowed)")
        }
        for id in RequestVector.pinnedVerdicts.keys {
            #expect(vectors.contains { $0.id == id }, "pinned verdict for unknown case \(id)")
        }
        // The provenance note travels with the vectors (docs/style.md §6).
        let loader = FixtureLoader(bundle: .module)
        #expect(try !loader.data("vectors/http1/SOURCE.md").isEmpty)
        #expect(try !loader.data("vectors/http1/README.md").isEmpty)
    }

    @Test("each case reaches its verdict under every split", arguments: try RequestVector.all())
    func verdict(_ vector: RequestVector) {
        let bytes = vector.bytes
        var failing: [String] = []
        for split in Split.all(for: bytes.count) {
            var parser = HTTPRequestParser(limits: Self.limits)
            let outcome = Feeder.feed(bytes, to: &parser, split: split)
            let problems = Self.problems(vector, outcome, parser)
            if !problems.isEmpty { failing.append("[\(split)] " + problems.joined(separator: "; ")) }
        }
        if let first = failing.first {
            Issue.record("\(vector.id) (\(vector.pinnedVerdict)): \(failing.count) split(s) fail, first: \(first)")
        }
    }

    /// What is wrong with one feeding, as readable lines; empty when it matches the case.
    static func problems(
        _ vector: RequestVector,
        _ outcome: FeedOutcome<HTTPRequestHead>,
        _ parser: HTTPRequestParser
    ) -> [String] {
        var problems = outcome.violations
        let verdict = vector.pinnedVerdict
        let bytes = vector.bytes
        if verdict.hasPrefix("reject-") {
            let status = Int(verdict.dropFirst("reject-".count))
            guard let error = outcome.error else {
                problems.append("no error; \(outcome.messages.count) message(s) parsed")
                return problems
            }
            if error.status != status { problems.append("status \(error.status) (\(error.code): \(error.reason))") }
            if outcome.messages.contains(where: \.isComplete) {
                problems.append("a request completed before the refusal")
            }
            // Only chunked-body errors may follow a delivered head; everything else is refused
            // before a single byte could be forwarded.
            if vector.category != "chunked" && !outcome.messages.isEmpty {
                problems.append("head delivered before a head-level refusal")
            }
            return problems
        }
        if let error = outcome.error {
            problems.append("refused: \(error)")
            return problems
        }
        guard let first = outcome.messages.first else {
            problems.append("no request parsed")
            return problems
        }
        if !first.isComplete { problems.append("request not complete") }
        if let expect = vector.expect { problems += mismatches(expect, first, label: "request") }
        var next = 1
        var ignoresRest = false
        for (index, entry) in (vector.pipelined ?? []).enumerated() {
            switch entry.verdict {
            case "accept":
                guard next < outcome.messages.count else {
                    problems.append("pipelined #\(index) missing")
                    continue
                }
                if !outcome.messages[next].isComplete { problems.append("pipelined #\(index) not complete") }
                if let expect = entry.expect {
                    problems += mismatches(expect, outcome.messages[next], label: "pipelined #\(index)")
                    // The previous request must have ended exactly where this one starts.
                    let start = outcome.messages[next - 1].endOffset ?? -1
                    let line = latin1Bytes("\(expect.method) \(expect.target) ")
                    if start < 0 || !bytes[start...].starts(with: line) {
                        problems.append("pipelined #\(index) does not start where the previous request ended (\(start))")
                    }
                }
                next += 1
            case "ignore":
                ignoresRest = true
                if outcome.consumed != bytes.count { problems.append("ignored bytes were not consumed and dropped") }
                if !parser.isDiscardingInput { problems.append("parser not discarding after a closing request") }
            default:
                problems.append("pipelined verdict \(entry.verdict) not handled by this test")
            }
        }
        if outcome.messages.count > next {
            problems.append("\(outcome.messages.count - next) unexpected extra request(s)\(ignoresRest ? " after close" : "")")
        }
        return problems
    }

    static func mismatches(
        _ expect: RequestVector.Expectation,
        _ message: ParsedMessage<HTTPRequestHead>,
        label: String
    ) -> [String] {
        var problems: [String] = []
        let head = message.head
        if head.method != expect.method { problems.append("\(label) method \(head.method)") }
        if head.target != expect.target { problems.append("\(label) target \(head.target)") }
        if head.version.description != expect.version { problems.append("\(label) version \(head.version)") }
        let headers = head.headers.map { [$0.name, $0.value] }
        if headers != expect.headers { problems.append("\(label) headers \(headers)") }
        if message.body != latin1Bytes(expect.body) { problems.append("\(label) body of \(message.body.count) bytes differs") }
        let trailers = message.trailers.map { $0.map { [$0.name, $0.value] } }
        if trailers != expect.trailers { problems.append("\(label) trailers \(String(describing: trailers))") }
        return problems
    }
}
