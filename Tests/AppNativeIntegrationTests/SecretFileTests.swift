import AppNativeGateway
import Foundation
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// The rules of a secret read from a file (`…_FILE`): one trailing line ending trimmed, the rest
/// exact; an unusable file named with its setting and path, never its content; `NAME` and
/// `NAME_FILE` never both; the path read afresh each time (a Kubernetes symlink swap).
@Suite("Secrets read from files")
struct SecretFileTests {
    /// A directory of its own, removed after `body`.
    static func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("secret-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    static func read(_ content: [UInt8], in directory: URL) throws(SettingFile.Unusable) -> String {
        let url = directory.appendingPathComponent("secret")
        try? Data(content).write(to: url)
        return try SettingFile(variable: "SESSION_SECRET_FILE", path: url.path).read()
    }

    @Test(
        "one trailing line ending is trimmed, everything else is kept exactly",
        arguments: [
            ("secret\n", "secret"), ("secret\r\n", "secret"), ("secret", "secret"), ("secret\n\n", "secret\n"),
            (" secret ", " secret "), ("se\ncret\n", "se\ncret"), ("\tsecret\r", "\tsecret\r"), ("sécret\n", "sécret"),
        ])
    func trimming(content: String, value: String) throws {
        try Self.withDirectory { (directory: URL) throws in
            #expect(try Self.read(Array(content.utf8), in: directory) == value)
        }
    }

    @Test("an empty file, or one holding only a line ending, is refused by name and path")
    func empty() throws {
        try Self.withDirectory { (directory: URL) throws in
            for content in ["", "\n", "\r\n"] {
                #expect {
                    try Self.read(Array(content.utf8), in: directory)
                } throws: { error in
                    let unusable = error as? SettingFile.Unusable
                    return unusable?.variable == "SESSION_SECRET_FILE" && unusable?.reason == "is empty"
                        && unusable?.description.hasPrefix(directory.path) == true
                }
            }
        }
    }

    @Test("a missing file, a directory, a file too large or not UTF-8: refused with a reason, never the content")
    func unusable() throws {
        try Self.withDirectory { (directory: URL) throws in
            let missing = SettingFile(variable: "ASSERTION_KEYS_FILE", path: directory.appendingPathComponent("missing").path)
            #expect(throws: SettingFile.Unusable.self) { try missing.read() }
            do throws(SettingFile.Unusable) {
                _ = try missing.read()
            } catch {
                #expect(error.description.contains(missing.path))
                #expect(error.reason.hasPrefix("cannot be read"))
            }
            let folder = SettingFile(variable: "ASSERTION_KEYS_FILE", path: directory.path)
            #expect {
                try folder.read()
            } throws: { error in
                (error as? SettingFile.Unusable)?.reason == "is not a regular file"
            }
            let large = [UInt8](repeating: UInt8(ascii: "k"), count: SettingFile.maxBytes + 1)
            #expect {
                try Self.read(large, in: directory)
            } throws: { error in
                let reason = (error as? SettingFile.Unusable)?.reason ?? ""
                return reason.hasPrefix("is larger than") && !"\(error)".contains("kkkk")
            }
            #expect {
                try Self.read([0x73, 0xFF, 0x0A], in: directory)
            } throws: { error in
                (error as? SettingFile.Unusable)?.reason == "is not UTF-8 text"
            }
        }
    }

    @Test("a Kubernetes rotation (the ..data symlink swapped) is seen at the next read")
    func symlinkSwap() throws {
        try Self.withDirectory { (directory: URL) throws in
            let manager = FileManager.default
            func version(_ name: String, _ content: String) throws {
                let folder = directory.appendingPathComponent(name)
                try manager.createDirectory(at: folder, withIntermediateDirectories: true)
                try (content + "\n").write(to: folder.appendingPathComponent("secret"), atomically: true, encoding: .utf8)
            }
            try version("..2026_01", "first")
            try manager.createSymbolicLink(atPath: directory.appendingPathComponent("..data").path, withDestinationPath: "..2026_01")
            try manager.createSymbolicLink(atPath: directory.appendingPathComponent("secret").path, withDestinationPath: "..data/secret")
            let file = SettingFile(variable: "SESSION_SECRET_FILE", path: directory.appendingPathComponent("secret").path)
            #expect(try file.read() == "first")

            // What the kubelet does: a new timestamped directory, a new link, renamed over ..data.
            try version("..2026_02", "second")
            try manager.createSymbolicLink(atPath: directory.appendingPathComponent("..data_tmp").path, withDestinationPath: "..2026_02")
            let observed1 = unsafe rename(directory.appendingPathComponent("..data_tmp").path, directory.appendingPathComponent("..data").path) == 0
            #expect(observed1)
            try manager.removeItem(at: directory.appendingPathComponent("..2026_01"))
            #expect(try file.read() == "second")
        }
    }

    @Test("NAME_FILE is read into NAME; NAME and NAME_FILE together are refused, naming both")
    func resolution() throws {
        try Self.withDirectory { (directory: URL) throws in
            let path = directory.appendingPathComponent("push-keys").path
            try "key-from-file-0123456789\n".write(toFile: path, atomically: true, encoding: .utf8)
            let resolved = SecretFiles(resolving: ["PUSH_API_KEYS_FILE": path, "OTHER": "x"])
            #expect(resolved.problems.isEmpty)
            #expect(resolved.environment["PUSH_API_KEYS"] == "key-from-file-0123456789")
            #expect(resolved.environment["OTHER"] == "x")
            #expect(resolved.files["PUSH_API_KEYS"] == SettingFile(variable: "PUSH_API_KEYS_FILE", path: path))

            let both = SecretFiles(resolving: ["PUSH_API_KEYS_FILE": path, "PUSH_API_KEYS": "key-from-environment-012"])
            #expect(both.problems.map(\.variable) == ["PUSH_API_KEYS_FILE"])
            #expect(both.problems.first?.message == "set either PUSH_API_KEYS or PUSH_API_KEYS_FILE, not both")
            #expect(both.environment["PUSH_API_KEYS"] == "key-from-environment-012")
        }
    }

    @Test("every secret setting has its file form in the reference, beside it")
    func reference() {
        let names = GatewayConfiguration.settings.map(\.name)
        for name in SecretFiles.names {
            let plain = names.firstIndex(of: name)
            #expect(plain != nil && names.firstIndex(of: name + "_FILE") == plain.map { $0 + 1 }, "\(name)_FILE")
        }
        // OpenTelemetry's own variable is read as its SDKs read it: the environment only.
        let environmentOnly: Set = ["OTEL_EXPORTER_OTLP_HEADERS"]
        #expect(Set(SecretFiles.names) == Set(GatewayConfiguration.settings.filter(\.isSecret).map(\.name)).subtracting(environmentOnly))
    }

    @Test("a value from a file is checked like the variable, and its problems name the file setting")
    func configuration() throws {
        try Self.withDirectory { (directory: URL) throws in
            let path = directory.appendingPathComponent("session").path
            let base = [
                "UPSTREAM_URL": "http://127.0.0.1:8000", "ENTRA_TENANT_ID": "00000000-0000-4000-8000-000000000001",
                "ENTRA_AUDIENCE": "11111111-1111-4111-8111-111111111111", "SESSION_SECRET_FILE": path,
            ]
            try "session-secret-from-a-file-0123456789abcdef\n".write(toFile: path, atomically: true, encoding: .utf8)
            let configuration = try GatewayConfiguration.fromEnvironment(base)
            #expect(configuration.identity.session != nil)

            try "too-short-secret-xyz\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect {
                try GatewayConfiguration.fromEnvironment(base)
            } throws: { error in
                let problems = (error as? ConfigurationError)?.problems ?? []
                return problems.map(\.variable) == ["SESSION_SECRET_FILE"] && !"\(error)".contains("too-short-secret-xyz")
            }

            var both = base
            both["SESSION_SECRET"] = "session-secret-from-the-environment-0123456789"
            #expect {
                try GatewayConfiguration.fromEnvironment(both)
            } throws: { error in
                (error as? ConfigurationError)?.description == "SESSION_SECRET_FILE: set either SESSION_SECRET or SESSION_SECRET_FILE, not both"
            }
        }
    }
}
