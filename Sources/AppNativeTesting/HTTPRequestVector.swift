public import Foundation
public import Testing

/// One case of the HTTP/1.1 request vectors (`http1/requests.json`, format
/// `http1-request-vectors/v1`; the README next to the copied file defines fields and verdicts).
/// The one loader both the parser tests and the server tests read them with (docs/style.md §6).
public struct HTTPRequestVector: Decodable, Sendable, CustomTestStringConvertible {
    public struct Expectation: Decodable, Sendable {
        public let method: String
        public let target: String
        public let version: String
        public let headers: [[String]]
        public let body: String
        public let trailers: [[String]]?
    }

    public struct Forwarding: Decodable, Sendable {
        public let mustNotContainHeaders: [String]?
        public let mustContainHeaders: [[String]]?
        public let requiredHost: String?
        public let note: String?
    }

    public struct Pipelined: Decodable, Sendable {
        public let verdict: String
        public let expect: Expectation?
        public let note: String?
    }

    public let id: String
    public let category: String
    public let title: String
    public let raw: String
    public let verdict: String
    public let alsoAcceptable: [String]?
    public let expect: Expectation?
    public let forwarding: Forwarding?
    public let pipelined: [Pipelined]?

    /// The wire bytes: one byte per character (Latin-1), nothing added.
    public var bytes: [UInt8] { Self.latin1Bytes(raw) }

    /// Failures and parameterized test names show the case id.
    public var testDescription: String { id }

    /// Where the copied file lives, relative to the repository root and to a test bundle.
    public static let repositoryPath = "Tests/AppNativeHTTPTests/Fixtures/vectors/http1/requests.json"
    public static let bundlePath = "vectors/http1/requests.json"

    private struct File: Decodable {
        let format: String
        let cases: [HTTPRequestVector]
    }

    /// Every case of `data` (the file's bytes); a different format is an error naming it.
    public static func cases(from data: Data, source: String) throws -> [HTTPRequestVector] {
        let file = try JSONDecoder().decode(File.self, from: data)
        guard file.format == "http1-request-vectors/v1" else {
            throw UnexpectedFormat(description: "\(source): unexpected format \(file.format)")
        }
        return file.cases
    }

    /// Every case, read from a test bundle that copies `Fixtures` (the parser tests).
    public static func all(bundle: Bundle) throws -> [HTTPRequestVector] {
        try cases(from: FixtureLoader(bundle: bundle).data(bundlePath), source: bundlePath)
    }

    /// Every case, read from the checkout (targets without a resource bundle); a missing file fails.
    public static func allFromRepository() throws -> [HTTPRequestVector] {
        let path = ProcessRunner.repositoryRoot() + "/" + repositoryPath
        guard FileManager.default.fileExists(atPath: path) else { throw FixtureLoader.MissingFixture(path: repositoryPath) }
        return try cases(from: Data(contentsOf: URL(fileURLWithPath: path)), source: repositoryPath)
    }

    /// Characters U+0000…U+00FF as single bytes: the vectors' `raw` strings are Latin-1.
    public static func latin1Bytes(_ text: String) -> [UInt8] {
        text.unicodeScalars.map { scalar in
            precondition(scalar.value <= 0xFF, "not a Latin-1 string")
            return UInt8(scalar.value)
        }
    }

    public struct UnexpectedFormat: Error, CustomStringConvertible {
        public let description: String
    }
}
