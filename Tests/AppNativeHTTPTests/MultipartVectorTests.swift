import AppNativeHTTP
import AppNativeModels
import AppNativeTesting
import Testing

/// The shared multipart/form-data vectors (Fixtures/vectors/multipart), fed under every split.
@Suite("Multipart vectors")
struct MultipartVectorTests {
    /// The vector file's `assumedLimits` (content: 10 MiB for fields and files alike).
    static let limits = MultipartLimits(
        maxParts: 100,
        maxHeaderLineBytes: 8192,
        maxHeaderCount: 32,
        maxFieldBytes: 10 * 1024 * 1024,
        maxFileBytes: 10 * 1024 * 1024
    )

    @Test("the vector file is complete and every pinned verdict is one it allows")
    func vectorFile() throws {
        let vectors = try MultipartVector.all()
        #expect(vectors.count == 55)
        #expect(vectors.filter { $0.verdict == "accept" }.count == 29)
        #expect(Set(vectors.map(\.id)).count == vectors.count, "case ids are unique")
        for vector in vectors where MultipartVector.referenceReadings[vector.id] == nil {
            let allowed = [vector.verdict] + (vector.alsoAcceptable ?? [])
            #expect(allowed.contains(vector.pinnedVerdict), "\(vector.id): pinned \(vector.pinnedVerdict) not in \(allowed)")
        }
        for id in Array(MultipartVector.pinnedVerdicts.keys) + Array(MultipartVector.referenceReadings.keys) {
            #expect(vectors.contains { $0.id == id }, "pinned verdict for unknown case \(id)")
        }
        let loader = FixtureLoader(bundle: .module)
        #expect(try !loader.data("vectors/multipart/SOURCE.md").isEmpty)
        #expect(try !loader.data("vectors/multipart/README.md").isEmpty)
    }

    @Test("each case reaches its verdict under every split", arguments: try MultipartVector.all())
    func verdict(_ vector: MultipartVector) {
        let boundary: MultipartBoundary
        do {
            boundary = try MultipartBoundary(contentType: vector.contentType)
        } catch {
            // Refused from the Content-Type alone: no body byte is read.
            if vector.pinnedVerdict != "reject" || error.status != 400 {
                Issue.record("\(vector.id) (\(vector.pinnedVerdict)): Content-Type refused: \(error)")
            }
            return
        }
        let outcome = MultipartFeeder.everySplit(vector.bytes, label: vector.id) {
            MultipartParser(boundary: boundary, limits: Self.limits)
        }
        let problems = Self.problems(vector, outcome)
        if !problems.isEmpty {
            Issue.record("\(vector.id) (\(vector.pinnedVerdict)): \(problems.joined(separator: "; "))")
        }
    }

    /// What is wrong with the outcome for `vector`, as readable lines; empty when it matches.
    static func problems(_ vector: MultipartVector, _ outcome: MultipartOutcome) -> [String] {
        var problems = outcome.violations
        if let reading = MultipartVector.referenceReadings[vector.id] {
            // Accepted whole, one part per part of the body; the part details differ (`reading`).
            if let error = outcome.error { problems.append("refused (\(reading)): \(error)") }
            if !outcome.isFinished || outcome.parts.count != 1 { problems.append("expected one part, got \(outcome.summary)") }
            return problems
        }
        switch vector.pinnedVerdict {
        case "reject":
            if outcome.error == nil { problems.append("accepted with \(outcome.parts.count) part(s)") }
            if outcome.isFinished { problems.append("finished before the refusal") }
            if let status = outcome.errorStatus, status != 400 && status != 413 { problems.append("status \(status)") }
        case "accept-zero-parts":
            if let error = outcome.error { problems.append("refused: \(error)") }
            if !outcome.parts.isEmpty || !outcome.isFinished { problems.append("expected zero parts, got \(outcome.summary)") }
        case "accept":
            if let error = outcome.error {
                problems.append("refused: \(error)")
                break
            }
            if !outcome.isFinished { problems.append("never finished") }
            let expected = vector.expect?.parts ?? []
            if outcome.parts.count != expected.count {
                problems.append("\(outcome.parts.count) parts, expected \(expected.count): \(outcome.summary)")
                break
            }
            for (index, (part, want)) in zip(outcome.parts, expected).enumerated() {
                problems += partProblems(part, want).map { "part \(index): \($0)" }
            }
        default:
            problems.append("unknown verdict")
        }
        return problems
    }

    static func partProblems(_ part: ParsedPart, _ want: MultipartVector.ExpectedPart) -> [String] {
        var problems: [String] = []
        let head = part.head
        if !part.isComplete { problems.append("not ended") }
        if Array(head.name.utf8) != latin1Bytes(want.name) { problems.append("name \(head.name)") }
        if head.filename.map({ Array($0.utf8) }) != want.filename.map(latin1Bytes) {
            problems.append("filename \(head.filename ?? "nil")")
        }
        if head.contentType.map({ Array($0.utf8) }) != want.contentType.map(latin1Bytes) {
            problems.append("content type \(head.contentType ?? "nil")")
        }
        if part.content != latin1Bytes(want.data) { problems.append("content of \(part.content.count) bytes differs") }
        switch want.filenameSafe {
        case nil:
            if head.isFile { problems.append("a file part where the case has none") }
        case .some(nil):
            // No usable name in the vectors; the contract's fallback here.
            let safe = head.preferredFilename.map(DocumentMetadata.sanitizedFilename)
            if safe != DocumentMetadata.fallbackFilename { problems.append("sanitised \(safe ?? "nil"), expected upload") }
        case .some(.some(let expected)):
            let safe = head.preferredFilename.map(DocumentMetadata.sanitizedFilename)
            if safe.map({ Array($0.utf8) }) != latin1Bytes(expected) { problems.append("sanitised \(safe ?? "nil")") }
        }
        return problems
    }
}
