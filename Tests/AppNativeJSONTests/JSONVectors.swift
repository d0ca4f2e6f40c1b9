import AppNativeJSON
import AppNativeTesting
import Foundation

/// The JSONTestSuite files copied into `Fixtures/vectors/json/` (see `SOURCE.md` there).
enum JSONVectors {
    static let loader = FixtureLoader(bundle: .module)

    /// The file names in `test_parsing/` or `test_transform/`, sorted; throws when the folder is missing.
    static func names(in folder: String) throws -> [String] {
        try loader.fileNames(in: "vectors/json/\(folder)").filter { $0.hasSuffix(".json") }
    }

    /// The raw bytes of one file; throws when it is missing.
    static func bytes(_ folder: String, _ name: String) throws -> [UInt8] {
        [UInt8](try loader.data("vectors/json/\(folder)/\(name)"))
    }

    /// The text of `VERDICTS.md`.
    static func verdictsDocument() throws -> String {
        String(decoding: try loader.data("vectors/json/VERDICTS.md"), as: UTF8.self)
    }
}

/// Parses and captures the outcome, so expectations can name the case that failed.
func parseResult(_ bytes: [UInt8], options: JSONParser.Options = .init()) -> Result<JSONValue, JSONError> {
    Result { () throws(JSONError) -> JSONValue in try JSONParser(options: options).parse(bytes) }
}

func parseResult(_ text: String, options: JSONParser.Options = .init()) -> Result<JSONValue, JSONError> {
    parseResult(Array(text.utf8), options: options)
}

extension Result where Failure == JSONError {
    /// The error code, or `nil` on success.
    var errorCode: JSONError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }

    var value: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
