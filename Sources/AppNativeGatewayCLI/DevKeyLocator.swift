import AppNativeDevPeers
import Foundation

/// Finds the repository's `keys/` folder for dev commands: `APPNATIVE_REPOSITORY_ROOT` if set,
/// else the first ancestor of the working directory or of the executable that holds the dev key.
enum DevKeyLocator {
    static func repositoryRoot(environment: [String: String]) -> String? {
        if let root = environment["APPNATIVE_REPOSITORY_ROOT"], !root.isEmpty { return root }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let starts = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath), executable]
        for start in starts {
            var candidate = start.standardizedFileURL
            for _ in 0..<8 {
                if FileManager.default.fileExists(atPath: candidate.appendingPathComponent(DevIdentityProvider.keyPath).path) {
                    return candidate.path
                }
                candidate.deleteLastPathComponent()
            }
        }
        return nil
    }

    static func devIdentityProvider(environment: [String: String]) throws -> DevIdentityProvider {
        guard let root = repositoryRoot(environment: environment) else {
            throw ArgumentList.UsageError(
                description: "dev key \(DevIdentityProvider.keyPath) not found; run from the repository or set APPNATIVE_REPOSITORY_ROOT"
            )
        }
        return try DevIdentityProvider.load(repositoryRoot: root)
    }
}
