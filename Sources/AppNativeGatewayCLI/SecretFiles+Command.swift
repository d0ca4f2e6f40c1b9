import AppNativeGateway

extension SecretFiles {
    /// `environment` with its `…_FILE` secrets read in, for the commands that use a secret
    /// without a whole configuration (`cookie`, `push`); `nil` after printing each problem.
    static func resolved(forCommand environment: [String: String]) -> [String: String]? {
        let files = SecretFiles(resolving: environment)
        for problem in files.problems {
            CommandOutput.printError("configuration: \(problem.variable): \(problem.message)")
        }
        return files.problems.isEmpty ? files.environment : nil
    }
}
