import AppNativeTesting
import Foundation
import Testing

/// One case of `Tests/AppNativeHTTPTests/Fixtures/vectors/http1/requests.json` (format
/// `http1-request-vectors/v1`; the README next to it defines the fields and verdicts). The
/// integration target has no resource bundle, so the file is read from the checkout; a missing
/// file fails the suite.
struct RequestVector: Decodable, Sendable, CustomTestStringConvertible {
    struct File: Decodable {
        let format: String
        let cases: [RequestVector]
    }

    struct Expectation: Decodable, Sendable {
        let method: String
        let target: String
        let version: String
        let headers: [[String]]
        let body: String
        let trailers: [[String]]?
    }

    struct Forwarding: Decodable, Sendable {
        let mustNotContainHeaders: [String]?
        let mustContainHeaders: [[String]]?
        let requiredHost: String?
        let note: String?
    }

    struct Pipelined: Decodable, Sendable {
        let verdict: String
        let expect: Expectation?
        let note: String?
    }

    let id: String
    let category: String
    let title: String
    let raw: String
    let verdict: String
    let alsoAcceptable: [String]?
    let expect: Expectation?
    let forwarding: Forwarding?
    let pipelined: [Pipelined]?

    /// The wire bytes: one byte per character (Latin-1), nothing added.
    var bytes: [UInt8] { latin1Bytes(raw) }
    var testDescription: String { id }

    /// The verdict the gateway reaches: the file's `verdict`, or the alternative pinned in
    /// `gatewayVerdicts`.
    var gatewayVerdict: String { Self.gatewayVerdicts[id] ?? verdict }

    /// Cases where the gateway, as a proxy, reaches one of `alsoAcceptable` instead of
    /// `verdict` (the parser alone reaches every `verdict`, see AppNativeHTTPTests). Each choice
    /// is one the file allows; `vectorFile()` checks that.
    static let gatewayVerdicts: [String: String] = [
        // RFC 9112 §3.2.2: the gateway forwards an absolute-form target in origin-form
        // (`/a?b=1`) with Host generated from the target's authority, which the case's
        // `forwarding.note` allows; it is therefore not forwarded as is.
        "target-absolute-form": "must-not-forward-as-is",
    ]

    static let relativePath = "Tests/AppNativeHTTPTests/Fixtures/vectors/http1/requests.json"

    static func all() throws -> [RequestVector] {
        let path = ProcessRunner.repositoryRoot() + "/" + relativePath
        guard FileManager.default.fileExists(atPath: path) else { throw FixtureLoader.MissingFixture(path: relativePath) }
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        guard file.format == "http1-request-vectors/v1" else {
            throw FixtureFailure(description: "\(relativePath): unexpected format \(file.format)")
        }
        return file.cases
    }
}
