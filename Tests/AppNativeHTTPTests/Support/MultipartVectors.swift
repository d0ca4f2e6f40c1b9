import AppNativeTesting
import Foundation
import Testing

/// `Fixtures/vectors/multipart/cases.json` (format `multipart-form-data-vectors/v1`), see its README.md.
struct MultipartVectorFile: Decodable {
    let format: String
    let cases: [MultipartVector]
}

struct MultipartVector: Decodable, Sendable, CustomTestStringConvertible {
    struct ExpectedPart: Decodable, Sendable {
        let name: String
        let filename: String?
        /// Present only when the part has `filename*`.
        let filenameStar: String?
        /// Outer nil: the key is absent (no filename given); inner nil: JSON null (no usable name).
        let filenameSafe: String??
        let contentType: String?
        let data: String

        enum CodingKeys: String, CodingKey {
            case name, filename, filenameStar, filenameSafe, contentType, data
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            filename = try container.decodeIfPresent(String.self, forKey: .filename)
            filenameStar = try container.decodeIfPresent(String.self, forKey: .filenameStar)
            filenameSafe = container.contains(.filenameSafe)
                ? .some(try container.decodeIfPresent(String.self, forKey: .filenameSafe)) : nil
            contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
            data = try container.decode(String.self, forKey: .data)
        }
    }

    struct Expectation: Decodable, Sendable {
        let parts: [ExpectedPart]
    }

    let id: String
    let title: String
    let contentType: String
    let body: String
    let verdict: String
    let alsoAcceptable: [String]?
    let expect: Expectation?

    var bytes: [UInt8] { latin1Bytes(body) }
    var testDescription: String { id }

    /// The verdict this parser reaches: the file's `verdict`, or the alternative pinned here
    /// (documented in Fixtures/vectors/multipart/SOURCE.md).
    var pinnedVerdict: String { Self.pinnedVerdicts[id] ?? verdict }

    static let pinnedVerdicts: [String: String] = [
        "first-boundary-no-dashes": "accept-zero-parts"
    ]

    static func all() throws -> [MultipartVector] {
        let data = try FixtureLoader(bundle: .module).data("vectors/multipart/cases.json")
        let file = try JSONDecoder().decode(MultipartVectorFile.self, from: data)
        guard file.format == "multipart-form-data-vectors/v1" else { throw UnexpectedFormat(format: file.format) }
        return file.cases
    }

    struct UnexpectedFormat: Error {
        let format: String
    }
}
