import AppNativeAuth
import AppNativeCore
import AppNativeDevPeers
import AppNativeGateway
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
            CommandOutput.markValid(&verdict, identity)
            verdict["status"] = .number(JSONNumber(200))
            verdict["explanation"] = .string(
                explanation(identity.user, kind: verifier.verifiedKind(of: token), groupsFromGraph: groupsFromGraph(environment)))
            if let kind = verifier.verifiedKind(of: token) { verdict["kind"] = .string(kind.name) }
            CommandOutput.printJSON(verdict)
            return .success
        } catch {
            CommandOutput.markInvalid(&verdict, error)
            verdict["status"] = .number(JSONNumber(Int64(error.bearerStatus)))
            verdict["explanation"] = .string(explanation(of: error, configuration: configuration))
            CommandOutput.printJSON(verdict)
            return error.code == .keysUnavailable ? .unavailable : .invalidCredential
        }
    }

    /// What an accepted token means at the gateway, in words.
    static func explanation(_ user: UserIdentity, kind: EntraTokenKind?, groupsFromGraph: Bool = false) -> String {
        var parts = [String]()
        switch kind {
        case .idToken(let clientID)?: parts.append("an ID token of the app \(clientID)")
        case .delegatedAccessToken(let version, let clientID)?:
            parts.append("a user's v\(version.rawValue) access token for the API (a required scope is in scp)"
                + (clientID.map { ", signed in with the app \($0)" } ?? ""))
        case .appOnlyAccessToken(let version, let clientID)?:
            parts.append("an application's v\(version.rawValue) app-only token: client \(clientID) is in ENTRA_APP_CLIENTS; "
                + "it is the service principal \(user.objectID), gets no session cookie, and policy roles rules see its app roles")
        case nil: parts.append("accepted")
        }
        if user.hasGroupsOverage, groupsFromGraph {
            parts.append("groups overage: the token does not carry the groups (_claim_names or hasgroups); GROUPS_FROM_GRAPH is on, so under an ACCESS_POLICY_FILE groups rule the gateway asks Microsoft Graph (getMemberGroups for \(user.objectID), cached GROUPS_CACHE_SECONDS): in when Graph lists the group, 403 policy when not, 503 with Retry-After while Graph cannot answer")
        } else if user.hasGroupsOverage {
            parts.append("groups overage: the token does not carry the groups (_claim_names or hasgroups), so an ACCESS_POLICY_FILE groups rule refuses it (403, groups_overage); GROUPS_FROM_GRAPH=true would ask Microsoft Graph instead")
        } else if user.groups.count > SessionCookieCodec.groupsBudget, groupsFromGraph {
            parts.append("\(user.groups.count) groups: its session cookie marks them as elsewhere (more than \(SessionCookieCodec.groupsBudget)); GROUPS_FROM_GRAPH is on, so a groups rule decides the cookie through Microsoft Graph and the token from its claim")
        } else if user.groups.count > SessionCookieCodec.groupsBudget {
            parts.append("\(user.groups.count) groups: its session cookie marks them as elsewhere (more than \(SessionCookieCodec.groupsBudget)), so a groups rule refuses the cookie (403, groups_overage) but not the token; GROUPS_FROM_GRAPH=true would ask Microsoft Graph instead")
        }
        return parts.joined(separator: "; ")
    }

    /// Whether `GROUPS_FROM_GRAPH` is on in `environment` (as `serve` reads it).
    static func groupsFromGraph(_ environment: [String: String]) -> Bool {
        var reader = EnvironmentReader(environment)
        return reader.boolean("GROUPS_FROM_GRAPH", default: false)
    }

    /// What a refusal means, for the codes whose cause lies in the configuration or the registration.
    static func explanation(of error: AuthError, configuration: EntraConfiguration) -> String {
        let kinds = [configuration.idTokens.map { "ID tokens for \($0.audiences.joined(separator: ", "))" },
                     configuration.accessTokens.map { "access tokens for \($0.audiences.joined(separator: ", "))" }]
            .compactMap { $0 }.joined(separator: " and ")
        switch error.code {
        case .audience: return "aud is none of the accepted audiences; this gateway accepts \(kinds)"
        case .issuer: return "iss is not the tenant's issuer for this kind (ID tokens: the v2.0 issuer; access tokens: v2.0 or sts.windows.net)"
        case .accessToken: return "an access token (scp) was sent where an ID token was expected: set ENTRA_API_CLIENT_ID to accept access tokens"
        case .scope:
            return "a delegated access token holding none of ENTRA_REQUIRED_SCOPES (\(configuration.accessTokens?.requiredScopes.joined(separator: ",") ?? "")) in scp"
        case .noScopeClaim: return "an access token without scp that is not an app-only token (no idtyp app, oid differs from sub)"
        case .appOnly: return "an application's app-only token, and ENTRA_APP_CLIENTS is not set: service callers are refused"
        case .appNotAllowed: return "an application's app-only token whose client (azp, v1 appid) is not in ENTRA_APP_CLIENTS"
        case .tokenKind: return "the token's kind is ambiguous: \(error.reason)"
        default: return error.reason
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
