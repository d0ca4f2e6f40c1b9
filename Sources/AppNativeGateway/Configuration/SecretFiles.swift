import Foundation

/// The secret settings that may also be read from a file: `NAME` or `NAME_FILE`, never both.
///
/// `resolve` reads each `NAME_FILE` into `NAME`, so every reader of the configuration sees one
/// value whichever form set it; `SIGHUP` reads the files again (`reread`) through the same rules.
public struct SecretFiles: Sendable {
    /// The settings with a `_FILE` form, by their plain name.
    public static let names = [
        "SESSION_SECRET", "SESSION_SECRET_PREVIOUS", "ASSERTION_KEYS", "PUSH_API_KEYS", "APNS_KEY", "ENTRA_CLIENT_SECRET",
    ]

    /// The file form's name of `name`.
    public static func fileVariable(of name: String) -> String { name + "_FILE" }

    /// The reference entry of `name`'s file form, in `section` beside the plain one.
    static func setting(for name: String, section: String) -> Setting {
        Setting(
            fileVariable(of: name), section: section,
            "Path of a file holding \(name) (a Docker or Kubernetes secret): its content without one trailing newline; re-read on SIGHUP (an unusable file keeps the value in force). Not together with \(name).")
    }

    /// The files set, by the plain name they stand for.
    public let files: [String: SettingFile]
    /// The environment with each file's value under its plain name.
    public let environment: [String: String]
    /// The settings that could not be read, each naming its variable.
    public let problems: [ConfigurationError.Problem]

    /// Reads every `NAME_FILE` of `environment`.
    public init(resolving environment: [String: String]) {
        var files: [String: SettingFile] = [:]
        var resolved = environment
        var problems: [ConfigurationError.Problem] = []
        for name in Self.names {
            let variable = Self.fileVariable(of: name)
            guard let path = environment[variable]?.trimmingCharacters(in: .whitespaces), !path.isEmpty else { continue }
            if let plain = environment[name], !plain.allSatisfy(\.isWhitespace) {
                problems.append(.init(variable: variable, message: "set either \(name) or \(variable), not both"))
                continue
            }
            let file = SettingFile(variable: variable, path: path)
            files[name] = file
            do {
                resolved[name] = try file.read()
            } catch {
                problems.append(.init(variable: variable, message: error.description))
            }
        }
        self.files = files
        self.environment = resolved
        self.problems = problems
    }

    /// `environment` with the files standing for `names` read again.
    ///
    /// - Throws: the first file that cannot be used; nothing of its content is in the error.
    func reread(_ names: [String], into environment: [String: String]) throws(SettingFile.Unusable) -> [String: String] {
        var environment = environment
        for name in names {
            guard let file = files[name] else { continue }
            environment[name] = try file.read()
        }
        return environment
    }

    /// The variable a problem reported under `variable` should name: the file form when the
    /// value came from a file (the operator fixes the file), else `variable` itself.
    func attributed(_ variable: String) -> String {
        files[variable]?.variable ?? variable
    }
}
