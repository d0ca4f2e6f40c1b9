import AppNativeServer

/// A value the gateway reads from files and reads again on `SIGHUP` (`Gateway.reloadFiles`):
/// the new value replaces the old one in whole, or, when a file cannot be used, the old one stays.
protocol FileReloading: Sendable {
    /// What the log calls it (`access policy`, `session secret`).
    var name: String { get }
    /// The settings naming its files, each counted in `config.reloads{file,outcome}`.
    var fileVariables: [String] { get }
    /// Reads the files again and puts the new value in force.
    ///
    /// - Throws: the setting whose file failed and why (never its content); the value in force is kept.
    func reloadFiles() throws(FileReloadFailure)
}

/// Why a reload was refused: the setting to fix and the reason, never a secret.
struct FileReloadFailure: Error, Sendable {
    let variable: String
    let reason: String
}

extension AccessPolicySource: FileReloading {
    var name: String { "access policy" }
    var fileVariables: [String] { ["ACCESS_POLICY_FILE"] }

    func reloadFiles() throws(FileReloadFailure) {
        do {
            try reload()
        } catch {
            throw FileReloadFailure(variable: "ACCESS_POLICY_FILE", reason: error.description)
        }
    }
}

extension TLSServerContext: FileReloading {
    var name: String { "TLS certificate" }
    /// The certificate and its key are one value, counted under the certificate's setting.
    var fileVariables: [String] { ["TLS_CERT_FILE"] }

    func reloadFiles() throws(FileReloadFailure) {
        do {
            try reload()
        } catch {
            throw FileReloadFailure(variable: "TLS_CERT_FILE", reason: error.description)
        }
    }
}

extension RoutesSource: FileReloading {
    var name: String { "routes" }
    var fileVariables: [String] { path == nil ? [] : ["ROUTES_FILE"] }

    func reloadFiles() throws(FileReloadFailure) {
        do {
            try reload()
        } catch {
            throw FileReloadFailure(variable: "ROUTES_FILE", reason: error.description)
        }
    }
}
