import AppNativeAuth
import Foundation

/// Reads a JWKS document from a file: `token verify --jwks-file` works offline.
struct FileJWKSFetcher: JWKSFetching {
    let path: String

    func fetchDocument() async throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// Serves a JWKS document held in memory (the dev identity provider).
struct InMemoryJWKSFetcher: JWKSFetching {
    let document: String

    func fetchDocument() async throws -> [UInt8] { Array(document.utf8) }
}
