import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import Foundation

/// A throw-away RSA client certificate and key made with the openssl CLI in a temporary folder,
/// as an operator would make one for an app registration.
struct TestClientCertificate {
    let directory: String
    let certificateFile: String
    let keyFile: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func make() throws -> TestClientCertificate {
        let directory = NSTemporaryDirectory() + "appnative-signin-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificate = TestClientCertificate(
            directory: directory, certificateFile: directory + "/client.pem", keyFile: directory + "/client-key.pem")
        _ = try openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", certificate.keyFile, "-out", certificate.certificateFile,
            "-subj", "/CN=appnative-test-client", "-days", "2",
        ])
        return certificate
    }

    /// The fingerprint openssl computes (`sha1` or `sha256`) as bytes, to check ours against.
    func fingerprint(_ digest: String) throws -> [UInt8] {
        let output = try Self.openssl(["x509", "-in", certificateFile, "-noout", "-fingerprint", "-\(digest)"])
        guard let hex = output.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines) else {
            throw Failure(description: "unexpected openssl output")
        }
        return hex.split(separator: ":").compactMap { UInt8($0, radix: 16) }
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    @discardableResult
    static func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "openssl \(arguments.first ?? "") failed") }
        return String(decoding: data, as: UTF8.self)
    }
}
