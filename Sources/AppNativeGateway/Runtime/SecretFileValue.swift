import AppNativeCore

/// A value built from secret settings of which at least one is read from a file (`…_FILE`):
/// `SIGHUP` reads its files again and builds it anew by the rules `serve` checked it with at
/// start, then puts it in force (`current`, read per request without a lock by each loop's
/// `Reloadable.Snapshot`).
///
/// Files that read the same as last time leave the value (and what loops derived from it) as
/// it is. A file that cannot be read, or whose value the rules refuse, leaves the value in force.
final class SecretFileValue<Value: Sendable>: FileReloading {
    let name: String
    /// The value in force.
    let current: Reloadable<Value>
    /// The plain names of the settings it is built from (`SESSION_SECRET`, …).
    private let settings: [String]
    private let secretFiles: SecretFiles
    /// Builds the value from an environment holding every setting; throws the setting to fix.
    private let build: @Sendable ([String: String]) throws(ConfigurationError.Problem) -> Value
    /// The files' values the value in force was built from (compared, never logged).
    private let lastRead: Locked<[String: String]>
    /// Called after a new value is put in force, with the environment it was built from: what
    /// else is keyed by the same settings follows it.
    private let didReplace: (@Sendable (Value, [String: String]) -> Void)?

    /// `nil` when none of `settings` is read from a file: nothing to reload.
    init?(
        _ name: String, settings: [String], files secretFiles: SecretFiles, current: Reloadable<Value>,
        build: @escaping @Sendable ([String: String]) throws(ConfigurationError.Problem) -> Value,
        didReplace: (@Sendable (Value, [String: String]) -> Void)? = nil
    ) {
        guard settings.contains(where: { secretFiles.files[$0] != nil }) else { return nil }
        self.name = name
        self.settings = settings
        self.secretFiles = secretFiles
        self.current = current
        self.build = build
        self.didReplace = didReplace
        lastRead = Locked(Self.fileValues(settings, secretFiles.environment))
    }

    var fileVariables: [String] { settings.compactMap { secretFiles.files[$0]?.variable } }

    func reloadFiles() throws(FileReloadFailure) {
        let environment: [String: String]
        do {
            environment = try secretFiles.reread(settings, into: secretFiles.environment)
        } catch {
            throw FileReloadFailure(variable: error.variable, reason: error.description)
        }
        let values = Self.fileValues(settings, environment)
        if lastRead.withLock({ $0 == values }) { return }
        let value: Value
        do {
            value = try build(environment)
        } catch {
            let variable = secretFiles.attributed(error.variable)
            let path = secretFiles.files[error.variable].map { "\($0.path): " } ?? ""
            throw FileReloadFailure(variable: variable, reason: path + error.message)
        }
        current.replace(with: value)
        lastRead.withLock { $0 = values }
        didReplace?(value, environment)
    }

    private static func fileValues(_ settings: [String], _ environment: [String: String]) -> [String: String] {
        var values: [String: String] = [:]
        for setting in settings { values[setting] = environment[setting] }
        return values
    }
}

extension ConfigurationError.Problem: Error {}
