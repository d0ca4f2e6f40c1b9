import AppNativeAuth
import AppNativeCore
import AppNativeDevPeers
import AppNativeJSON
import Foundation

/// `token verify` and `token mint --dev`.
enum TokenCommand {
    static let usage = """
        token verify [--jwks-file FILE] [--dev]   read a token on stdin, print a JSON verdict
        token mint --dev [--oid ID] [--email E] [--name N] [--role R]... [--lifetime SECONDS]
                                                  print a dev token signed with keys/dev (DEV ONLY)
        token jwks --dev                          print the dev identity provider's JWKS
        """

    static func run(_ arguments: ArgumentList, environment: [String: String]) async throws -> ExitCode {
        switch arguments.positional.dropFirst().first {
        case "verify":
            try arguments.checkOnly(["jwks-file", "dev"])
            return await verify(arguments, environment: environment)
        case "mint":
            try arguments.checkOnly(["dev", "oid", "email", "name", "role", "lifetime"])
            return try mint(arguments, environment: environment)
        case "jwks":
            try arguments.checkOnly(["dev"])
            guard arguments.has("dev") else { throw ArgumentList.UsageError(description: "token jwks needs --dev") }
            print(try DevKeyLocator.devIdentityProvider(environment: environment).jwksDocument)
            return .success
        default:
            throw ArgumentList.UsageError(description: "usage:\n" + usage)
        }
    }

    private static func verify(_ arguments: ArgumentList, environment: [String: String]) async -> ExitCode {
        let configuration: EntraConfiguration
        let fetcher: any JWKSFetching
        do {
            if arguments.has("dev") {
                let provider = try DevKeyLocator.devIdentityProvider(environment: environment)
                configuration = try EntraConfiguration(
                    tenantID: DevIdentityProvider.tenantID,
                    audiences: [DevIdentityProvider.audience]
                )
                fetcher = InMemoryJWKSFetcher(document: provider.jwksDocument)
            } else {
                configuration = try EntraConfiguration.fromEnvironment(environment)
                if let file = arguments.value("jwks-file") {
                    fetcher = FileJWKSFetcher(path: file)
                } else {
                    fetcher = try HTTPJWKSFetcher(url: configuration.jwksURL, caFile: environment["ENTRA_JWKS_CA_FILE"])
                }
            }
        } catch {
            CommandOutput.printError("\(error)")
            return .usage
        }
        let token = BearerCredential.token(fromAuthorization: "Bearer " + CommandOutput.readStandardInput()) ?? ""
        let verifier = EntraTokenVerifier(
            configuration: configuration,
            fetcher: fetcher,
            logger: Logger(minimumLevel: .error),
            metrics: MetricsRegistry()
        )
        var verdict = JSONObject()
        verdict["token"] = .string(CommandOutput.fingerprint(token))
        // One token, one download: load the keys first (an empty cache answers at once).
        await verifier.keys.refresh()
        do {
            let identity = try await verifier.verify(token)
            verdict["valid"] = .bool(true)
            verdict["reason"] = .null
            verdict["status"] = .number(JSONNumber(200))
            verdict["user"] = CommandOutput.json(identity.user)
            verdict["expires_at"] = CommandOutput.seconds(identity.expiresAt)
            CommandOutput.printJSON(verdict)
            return .success
        } catch {
            verdict["valid"] = .bool(false)
            verdict["reason"] = .string(error.code.description)
            verdict["detail"] = .string(error.reason)
            verdict["status"] = .number(JSONNumber(Int64(error.bearerStatus)))
            CommandOutput.printJSON(verdict)
            return error.code == .keysUnavailable ? .unavailable : .invalidCredential
        }
    }

    private static func mint(_ arguments: ArgumentList, environment: [String: String]) throws -> ExitCode {
        guard arguments.has("dev") else {
            throw ArgumentList.UsageError(description: "token mint only signs dev tokens: pass --dev")
        }
        let provider = try DevKeyLocator.devIdentityProvider(environment: environment)
        var user = DevIdentityProvider.User()
        if let oid = arguments.value("oid") { user.objectID = oid }
        if let email = arguments.value("email") { user.email = email }
        if let name = arguments.value("name") { user.name = name }
        user.roles = arguments.values("role")
        var lifetime = Duration.seconds(3600)
        if let text = arguments.value("lifetime") {
            guard let seconds = Int(text), seconds > 0 else {
                throw ArgumentList.UsageError(description: "--lifetime must be a positive number of seconds")
            }
            lifetime = .seconds(seconds)
        }
        print(try provider.token(for: user, issuedAt: SystemTimeSource().wallSeconds, lifetime: lifetime))
        return .success
    }
}
