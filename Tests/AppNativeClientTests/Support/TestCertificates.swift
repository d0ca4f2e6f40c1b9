import Foundation

/// The committed test PKI (`keys/test/`, see `keys/README.md`): the test CA and the `localhost`
/// server certificate and key the HTTPS peers use. A missing file fails the test that needs it.
struct TestCertificates: Sendable {
    var caFile: String
    var certificateFile: String
    var keyFile: String

    struct MissingFile: Error, CustomStringConvertible {
        var path: String
        var description: String { "missing test key file: \(path) (regenerate with keys/generate.sh)" }
    }

    /// The committed certificates, checked to exist.
    static func shared() throws -> TestCertificates {
        let folder = repositoryRoot.appendingPathComponent("keys/test", isDirectory: true)
        let certificates = TestCertificates(
            caFile: folder.appendingPathComponent("ca.pem").path,
            certificateFile: folder.appendingPathComponent("localhost.pem").path,
            keyFile: folder.appendingPathComponent("localhost-key.pem").path
        )
        for path in [certificates.caFile, certificates.certificateFile, certificates.keyFile]
        where !FileManager.default.fileExists(atPath: path) {
            throw MissingFile(path: path)
        }
        return certificates
    }

    /// `Tests/AppNativeClientTests/Support/TestCertificates.swift` → the repository root.
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // AppNativeClientTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
    }
}
