import AppNativeJSON
import AppNativeModels
import Testing

/// The host-side site widget manifest of `contract/models.md` §1.3, at and one past each bound.
@Suite struct SiteWidgetManifestTests {
    static func manifest(_ entries: String) -> [UInt8] { Array(entries.utf8) }
    static func entry(n: Int = 1, title: String = "T") -> String { #"{"n":\#(n),"title":"\#(title)"}"# }

    @Test(arguments: [
        ("n 1", entry(n: 1), nil), ("n 99", entry(n: 99), nil), ("n 0", entry(n: 0), "[0].n"), ("n 100", entry(n: 100), "[0].n"),
        ("title 60", entry(title: String(repeating: "é", count: 60)), nil),
        ("title 61", entry(title: String(repeating: "é", count: 61)), "[0].title"), ("title empty", entry(title: ""), "[0].title"),
        ("size unknown", #"{"n":1,"title":"T","size":"huge"}"#, "[0].size"),
    ] as [(String, String, String?)])
    func entryRule(_ name: String, _ entry: String, _ failingPath: String?) {
        do {
            let entries = try SiteWidgetManifestEntry.decodeManifest(Self.manifest("[\(entry)]"))
            #expect(failingPath == nil, "\(name): expected an issue at \(failingPath ?? "")")
            #expect(entries.count == 1, "\(name)")
        } catch {
            #expect(failingPath != nil && error.issues.map(\.pathDescription).contains(failingPath!), "\(name): \(error.issues)")
        }
    }

    @Test func twentyEntriesAndNotTwentyOne() throws {
        let twenty = "[" + (1...20).map { Self.entry(n: $0) }.joined(separator: ",") + "]"
        let entries = try SiteWidgetManifestEntry.decodeManifest(Self.manifest(twenty))
        #expect(entries.first?.jsonValue(.response) == json(#"{"n":1,"title":"T","size":"medium","scrollable":false}"#))
        let twentyOne = "[" + (1...21).map { Self.entry(n: $0) }.joined(separator: ",") + "]"
        #expect(throws: ModelError.self) { try SiteWidgetManifestEntry.decodeManifest(Self.manifest(twentyOne)) }
    }

    @Test func byteLimit() throws {
        let padding = String(repeating: " ", count: SiteWidgetManifestEntry.maxManifestBytes - 2)
        #expect(try SiteWidgetManifestEntry.decodeManifest(Self.manifest("[" + padding + "]")).isEmpty, "exactly 16384 bytes")
        do {
            _ = try SiteWidgetManifestEntry.decodeManifest(Self.manifest("[" + padding + " ]"))
            Issue.record("16385 bytes must fail")
        } catch {
            #expect(error.code == .bodyTooLarge)
        }
    }
}
