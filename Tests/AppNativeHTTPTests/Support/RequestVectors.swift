import AppNativeTesting
import Testing
import Foundation

/// `Fixtures/vectors/http1/requests.json` (format `http1-request-vectors/v1`), see its README.md.
struct RequestVectorFile: Decodable {
    let format: String
    let cases: [RequestVector]
}

struct RequestVector: Decodable, Sendable, CustomTestStringConvertible {
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

    var bytes: [UInt8] { latin1Bytes(raw) }
    var testDescription: String { id }

    /// The verdict this gateway reaches: the file's `verdict`, or the alternative pinned in
    /// `pinnedVerdicts` (documented in Fixtures/vectors/http1/SOURCE.md).
    var pinnedVerdict: String { RequestVector.pinnedVerdicts[id] ?? verdict }

    /// Cases where the gateway picks one of `alsoAcceptable` instead of `verdict`. Empty: every
    /// preferred verdict is met. A choice added here must be listed in SOURCE.md.
    static let pinnedVerdicts: [String: String] = [:]

    /// The assumed limits of the vector file.
    static let limits = HTTPLimitsValues(
        maxRequestLineBytes: 8192,
        maxHeaderBytes: 65536,
        maxHeaderCount: 100,
        maxBodyBytes: 10 * 1024 * 1024
    )

    static func all() throws -> [RequestVector] {
        let data = try FixtureLoader(bundle: .module).data("vectors/http1/requests.json")
        let file = try JSONDecoder().decode(RequestVectorFile.self, from: data)
        guard file.format == "http1-request-vectors/v1" else {
            throw UnexpectedFormat(format: file.format)
        }
        return file.cases
    }

    struct UnexpectedFormat: Error {
        let format: String
    }
}

/// Plain limit numbers, so this file does not import the module under test.
struct HTTPLimitsValues: Sendable {
    let maxRequestLineBytes: Int
    let maxHeaderBytes: Int
    let maxHeaderCount: Int
    let maxBodyBytes: UInt64
}
