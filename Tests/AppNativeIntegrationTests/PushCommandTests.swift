import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// `app-native-gateway push …` through the built executable against the fake APNs server.
@Suite("push command", .timeLimit(.minutes(2)))
struct PushCommandTests {
    static let ok = String(repeating: "ab", count: 32)

    private func environment(_ fake: FakeAPNsPeer) -> [String: String] {
        [
            "APNS_KEY": fake.keyPEM.replacing("\n", with: "\\n"), "APNS_KEY_ID": FakeAPNsPeer.keyID,
            "APNS_TEAM_ID": FakeAPNsPeer.teamID, "APNS_BUNDLE_ID": FakeAPNsPeer.bundleID,
            "APNS_BASE_URL": fake.baseURL, "APNS_CA_FILE": fake.caFile ?? "",
        ]
    }

    private func lines(_ output: ProcessRunner.Output) throws -> [JSONObject] {
        try output.stdout.split(separator: "\n").map { try #require(try JSONParser().parse(String($0)).objectValue) }
    }

    @Test("alert: prints the result, exit 0; the recorded payload is the contract's")
    func alert() async throws {
        let fake = try await FakeAPNsPeer.start(tls: true)
        defer { fake.stop() }
        let output = try await CommandLineTests.run(
            [
                "push", "alert", "--token", Self.ok, "--title", "Hi", "--body", "There", "--data", #"{"webapp_id":"hr"}"#,
                "--interruption-level", "time-sensitive", "--collapse-id", "c1",
            ], environment: environment(fake))
        #expect(output.status == 0, "\(output.stderr)")
        let result = try #require(try lines(output).first)
        #expect(result["sent"] == true)
        #expect(result["status"] == 200)
        #expect(result["reason"] == .null)
        let record = try #require(try fake.records().first)
        let expected = try JSONParser().parse(
            #"{"aps":{"alert":{"title":"Hi","body":"There"},"sound":"default","interruption-level":"time-sensitive"},"webapp_id":"hr"}"#)
        #expect(record["payload"] == expected)
        #expect(record["headers"]?["apns-collapse-id"] == "c1")
        #expect(record["headers"]?["apns-push-type"] == "alert")
        #expect(!output.stdout.contains("BEGIN PRIVATE KEY") && !output.stderr.contains("BEGIN PRIVATE KEY"))
    }

    @Test("several tokens: one line each; exit 4 when one was refused, flagged permanent")
    func refused() async throws {
        let fake = try await FakeAPNsPeer.start(tls: false)
        defer { fake.stop() }
        let dead = "410" + String(repeating: "0", count: 61)
        let output = try await CommandLineTests.run(
            ["push", "approvals", "--token", Self.ok, "--token", dead, "--webapp-id", "w"], environment: environment(fake))
        #expect(output.status == 4, "\(output.stderr)")
        let results = try lines(output)
        #expect(results.count == 2)
        #expect(results[0]["sent"] == true)
        #expect(results[1]["sent"] == false)
        #expect(results[1]["reason"] == "Unregistered")
        #expect(results[1]["status"] == 410)
        #expect(results[1]["permanent"] == true)
        #expect(results[1]["timestamp"] == 1_700_000_000_000)
    }

    @Test("live-activity start/update/end and critical reach the fake with their headers")
    func otherKinds() async throws {
        let fake = try await FakeAPNsPeer.start(tls: false)
        defer { fake.stop() }
        let runs: [[String]] = [
            [
                "push", "live-activity", "start", "--token", Self.ok, "--state", #"{"title":"Build","progress":0.5}"#,
                "--attributes", #"{"webAppID":"ci","activityID":"r1","webAppName":"CI"}"#,
            ],
            ["push", "live-activity", "update", "--token", Self.ok, "--state", #"{"title":"Build"}"#, "--priority", "5"],
            ["push", "live-activity", "end", "--token", Self.ok, "--dismiss-at", "1790000000"],
            ["push", "critical", "--token", Self.ok, "--webapp-id", "ops", "--title", "T", "--body", "B", "--volume", "3"],
            ["push", "widgets", "--token", Self.ok, "--webapp-id", "w", "--widgets", "[]"],
            ["push", "silent", "--token", Self.ok],
        ]
        for arguments in runs {
            let output = try await CommandLineTests.run(arguments, environment: environment(fake))
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
        }
        let records = try fake.records()
        #expect(records.count == runs.count)
        #expect(records.map { $0["headers"]?["apns-push-type"]?.stringValue } == [
            "liveactivity", "liveactivity", "liveactivity", "alert", "background", "background",
        ])
        #expect(records[1]["headers"]?["apns-priority"] == "5")
        #expect(records[0]["payload"]?["aps"]?["attributes-type"] == "WebAppActivityAttributes")
        #expect(records[2]["payload"]?["aps"]?["dismissal-date"] == 1_790_000_000)
        #expect(records[3]["payload"]?["aps"]?["sound"]?["volume"] == 1.0)
        #expect(records[4]["payload"]?["widgets"] == [])
    }

    @Test("bad input and missing credentials exit 2 without sending")
    func usage() async throws {
        let fake = try await FakeAPNsPeer.start(tls: false)
        defer { fake.stop() }
        let bad: [[String]] = [
            ["push", "alert", "--token", Self.ok, "--title", "T"],
            ["push", "alert", "--token", Self.ok, "--title", "T", "--body", "B", "--interruption-level", "loud"],
            ["push", "silent", "--token", Self.ok, "--data", #"{"aps":1}"#],
            ["push", "silent", "--token", "not-hex"],
            ["push", "live-activity", "update", "--token", Self.ok],
            ["push", "silent", "--token", Self.ok, "--data", #"{"x":"\#(String(repeating: "a", count: 5000))"}"#],
            // Finite numbers no integer holds: refused, not converted.
            ["push", "silent", "--token", Self.ok, "--expiration", "1e300"],
            ["push", "silent", "--token", Self.ok, "--expiration", "-1e300"],
            ["push", "silent", "--token", Self.ok, "--timeout", "1e300"],
            ["push", "live-activity", "update", "--token", Self.ok, "--state", #"{"title":"t"}"#, "--priority", "1e300"],
        ]
        for arguments in bad {
            let output = try await CommandLineTests.run(arguments, environment: environment(fake))
            #expect(output.status == 2, "\(arguments.prefix(3)): \(output.stderr)")
        }
        let unconfigured = try await CommandLineTests.run(["push", "silent", "--token", Self.ok])
        #expect(unconfigured.status == 2)
        #expect(unconfigured.stderr.contains("APNS_KEY_ID"))
        #expect(try fake.records().isEmpty)
    }
}
