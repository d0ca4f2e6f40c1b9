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

    /// Cases the parser reads as the Python reference does (python-multipart under Starlette),
    /// which the gateway answers for, rather than as the corpus's strict parser: each is
    /// accepted with its parts, and the reason says what differs (SOURCE.md).
    static let referenceReadings: [String: String] = [
        "filename-windows-path": "the reference reduces an IE-style Windows path to its last component while parsing",
        "filename-star-utf8": "filename* is ignored (RFC 7578 §4.2): the part is a text field",
        "filename-star-traversal": "filename* is ignored (RFC 7578 §4.2): the part is a text field",
        "filename-star-latin1": "filename* is ignored (RFC 7578 §4.2): the part is a text field",
        "filename-star-bad-percent": "filename* is ignored (RFC 7578 §4.2): the part is a text field",
        "filename-star-bad-utf8": "filename* is ignored (RFC 7578 §4.2): the part is a text field",
        "disposition-not-form-data": "the reference does not check the disposition type",
        "disposition-duplicate-header": "the reference keeps the last Content-Disposition",
        "disposition-duplicate-name-param": "the reference keeps the last name parameter",
        "content-transfer-encoding-base64": "the reference ignores Content-Transfer-Encoding: the content stays undecoded",
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
