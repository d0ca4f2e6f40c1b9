import AppNativeTesting
import Foundation
import Testing

/// The gateway's native routes against the Python reference (bmsdna-app-native 0.6.0, installed by
/// scripts/install-reference.sh), request by request: `Tests/Peers/differential.py` sends the same
/// deterministic cases to the reference's routers and to the gateway under test (in front of the
/// same routers as its recording backend) and reports every case where the status, the answer or
/// what the backend received differ.
///
/// Every disagreement must be listed in `Tests/Peers/differential_expected.json` with its reason (a
/// deviation documented in docs/migration.md, or "open: …", still to be closed); a listed case that agrees
/// fails too, so the list stays exact: a fix removes its entries, a regression adds none.
@Suite("Differential: native routes against the Python reference", .serialized, .timeLimit(.minutes(10)))
struct ReferenceDifferentialTests {
    struct Report: Decodable {
        struct Disagreement: Decodable {
            let id: String
            let classification: String?
            let aspects: [String]
        }

        struct Figures: Decodable {
            let cases: Int
            let agree: Int
            let disagree: Int
        }

        let requests: Int
        let seconds: Double
        let routes: [String: Figures]
        let disagreements: [Disagreement]
        /// Each case's reference and gateway status; 0 when the connection failed before an answer.
        let statuses: [String: [Int]]
    }

    struct Expected: Decodable {
        struct Entry: Decodable {
            let id: String
            let reason: String
        }

        let disagreements: [Entry]
    }

    @Test("every disagreement with the reference is a listed one, and every listed one still disagrees")
    func differential() async throws {
        let root = ProcessRunner.repositoryRoot()
        let python = root + "/.build/reference-venv/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/install-reference.sh (make test does)")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("differential-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let reportPath = scratch.appendingPathComponent("report.json").path
        let result = try await ProcessRunner.run(
            python,
            [root + "/Tests/Peers/differential.py", "--gateway", GatewayExecutable.path, "--report", reportPath, "--time-limit", "420"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": scratch.path]
        )
        try #require(result.status == 0, "differential.py exited \(result.status):\n\(result.stdout.suffix(4000))\n\(result.stderr.suffix(4000))")
        print(result.stdout)
        let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
        let expectedData = try Data(contentsOf: URL(fileURLWithPath: root + "/Tests/Peers/differential_expected.json"))
        let expected = try JSONDecoder().decode(Expected.self, from: expectedData)

        #expect(report.requests >= 1000, "the suite sends at least 1,000 requests (it sent \(report.requests))")
        let unanswered = report.statuses.filter { $0.value.first == 0 }.keys.sorted()
        #expect(unanswered.isEmpty, "the reference gave no answer (the harness, not the gateway, failed): \(unanswered.prefix(20))")
        #expect(report.routes.count == 10 && report.routes.values.allSatisfy { $0.cases > 0 }, "every native route has cases")

        var listed = [String: String]()
        for entry in expected.disagreements {
            #expect(listed[entry.id] == nil, "\(entry.id) is listed twice in differential_expected.json")
            #expect(!entry.reason.isEmpty, "\(entry.id) has no reason in differential_expected.json")
            listed[entry.id] = entry.reason
        }
        let found = Dictionary(report.disagreements.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let new = report.disagreements.filter { listed[$0.id] == nil }
        let fixed = listed.keys.filter { found[$0] == nil }.sorted()
        for disagreement in new {
            Issue.record("new disagreement with the reference: \(disagreement.id) (\(disagreement.classification ?? "?"); \(disagreement.aspects.joined(separator: ", "))); see the report's entry for the answers")
        }
        for id in fixed {
            Issue.record("now agrees, remove from the list: \(id) (was: \(listed[id] ?? ""))")
        }
        if !new.isEmpty || !fixed.isEmpty {
            let kept = scratch.deletingLastPathComponent().appendingPathComponent("differential-report-last.json")
            try? FileManager.default.removeItem(at: kept)
            try? FileManager.default.copyItem(atPath: reportPath, toPath: kept.path)
            Issue.record("\(new.count) new, \(fixed.count) fixed; the run's report is kept at \(kept.path)")
        }
    }
}
