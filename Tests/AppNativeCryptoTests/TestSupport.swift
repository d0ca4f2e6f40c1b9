import AppNativeTesting
import Foundation
import Testing

/// Fixture access for this target: everything comes from the test bundle (docs/style.md §6).
enum Fixtures {
    static let loader = FixtureLoader(bundle: .module)

    /// The UTF-8 text of `Fixtures/<path>`.
    static func text(_ path: String) throws -> String {
        String(decoding: try loader.data(path), as: UTF8.self)
    }

    /// A JSON object fixture.
    static func object(_ path: String) throws -> [String: Any] {
        try #require(try loader.json(path) as? [String: Any], "\(path) is not a JSON object")
    }
}

/// Decodes lower-case hex from a vector file, failing the test on malformed input.
func hex(_ text: String, _ context: @autoclosure () -> String = "") throws -> [UInt8] {
    try #require(Hex.bytes(text), "malformed hex \(context())")
}

/// Strict unpadded base64url (RFC 7515 §2, RFC 4648 §5): nil for padding, other alphabets or
/// a length that cannot occur.
func base64URLDecode(_ text: Substring) -> [UInt8]? {
    let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    guard text.allSatisfy({ allowed.contains($0) }), text.count % 4 != 1 else { return nil }
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
    return Data(base64Encoded: standard).map { Array($0) }
}

/// One Wycheproof vector file (see Fixtures/vectors/wycheproof/SOURCE.md).
struct WycheproofFile {
    struct Case {
        let tcId: Int
        let comment: String
        let flags: [String]
        let result: String
        let fields: [String: Any]

        func bytes(_ name: String, file: String) throws -> [UInt8] {
            let text = try #require(fields[name] as? String, "\(file) tcId \(tcId): no field \(name)")
            return try hex(text, "\(file) tcId \(tcId) field \(name)")
        }
    }

    struct Group {
        let fields: [String: Any]
        let cases: [Case]
    }

    let name: String
    let numberOfTests: Int
    let groups: [Group]

    init(_ name: String) throws {
        let json = try Fixtures.object("vectors/wycheproof/\(name)")
        self.name = name
        numberOfTests = try #require(json["numberOfTests"] as? Int)
        let rawGroups = try #require(json["testGroups"] as? [[String: Any]])
        groups = try rawGroups.map { group in
            let tests = try #require(group["tests"] as? [[String: Any]])
            let cases = try tests.map { test in
                Case(
                    tcId: try #require(test["tcId"] as? Int),
                    comment: test["comment"] as? String ?? "",
                    flags: test["flags"] as? [String] ?? [],
                    result: try #require(test["result"] as? String),
                    fields: test
                )
            }
            return Group(fields: group, cases: cases)
        }
    }

    var caseCount: Int { groups.reduce(0) { $0 + $1.cases.count } }
}

/// Collects verdict mismatches so one run reports all of them, each naming file and tcId.
struct VerdictChecker {
    let file: String
    /// Acceptable cases whose outcome this project pins: tcId to "accepted?".
    let pinnedAcceptable: [Int: Bool]
    private(set) var checked = 0

    init(file: String, pinnedAcceptable: [Int: Bool] = [:]) {
        self.file = file
        self.pinnedAcceptable = pinnedAcceptable
    }

    mutating func check(_ test: WycheproofFile.Case, accepted: Bool, sourceLocation: SourceLocation = #_sourceLocation)
    {
        checked += 1
        let label = "\(file) tcId \(test.tcId) (\(test.comment); flags \(test.flags))"
        switch test.result {
        case "valid":
            if !accepted { Issue.record("\(label): valid case was rejected", sourceLocation: sourceLocation) }
        case "invalid":
            if accepted { Issue.record("\(label): invalid case was accepted", sourceLocation: sourceLocation) }
        case "acceptable":
            guard let pinned = pinnedAcceptable[test.tcId] else {
                Issue.record("\(label): acceptable case has no pinned outcome", sourceLocation: sourceLocation)
                return
            }
            if accepted != pinned {
                Issue.record(
                    "\(label): acceptable case pinned to \(pinned ? "accept" : "reject") but got the opposite",
                    sourceLocation: sourceLocation
                )
            }
        default:
            Issue.record("\(label): unknown result \(test.result)", sourceLocation: sourceLocation)
        }
    }
}
