import AppNativeAuth
import AppNativeDevPeers
import AppNativeGateway
import AppNativeHTTP
import AppNativeJSON
import Foundation

/// `cookie inspect`: verifies a session cookie with the gateway's settings and prints its claims.
enum CookieCommand {
    static let usage = """
        cookie inspect    read a cookie value (or `name=value`, or a Cookie header) on stdin,
                          verify it with SESSION_*, ENTRA_TENANT_ID and the deployment
                          (SESSION_AUDIENCE or the ENTRA_* client ids), print a JSON verdict
        """

    static func run(_ arguments: ArgumentList, environment given: [String: String]) throws -> ExitCode {
        guard let environment = SecretFiles.resolved(forCommand: given) else { return .usage }
        guard arguments.positional.dropFirst().first == "inspect" else {
            throw ArgumentList.UsageError(description: "usage:\n" + usage)
        }
        try arguments.checkOnly([])
        let settings: SessionCookieSettings
        let tenant: String
        do {
            guard let configured = try SessionCookieSettings.fromEnvironment(environment) else {
                CommandOutput.printError("SESSION_SECRET is not set")
                return .usage
            }
            settings = configured
            tenant = environment["ENTRA_TENANT_ID"]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard !tenant.isEmpty else {
                CommandOutput.printError("ENTRA_TENANT_ID is not set (cookies are bound to the tenant)")
                return .usage
            }
        } catch {
            CommandOutput.printError("\(error)")
            return .usage
        }
        let codec = SessionCookieCodec(settings: settings, tenantID: tenant)
        var input = CommandOutput.readStandardInput()
        if input.lowercased().hasPrefix("cookie:") { input = String(input.dropFirst("cookie:".count)) }
        let value = input.contains("=") && !input.hasPrefix("ey")
            ? CookieHeader.values(named: settings.name, in: [input]).first ?? ""
            : input
        var verdict = JSONObject()
        verdict["cookie"] = .string(CommandOutput.fingerprint(value))
        // Where the cookie says it belongs (read before verifying, so a refused cookie shows it
        // too), and where it would have to belong to be read here.
        verdict["deployment"] = SessionCookieCodec.namedDeployments(inUnverifiedValue: value).map { .array($0.map(JSONValue.string)) } ?? .null
        verdict["expected_deployment"] = .string(settings.audience)
        verdict["accepts_reference_cookies"] = .bool(settings.acceptsReferenceCookies)
        do {
            let identity = try codec.identity(fromValue: value)
            CommandOutput.markValid(&verdict, identity)
            CommandOutput.printJSON(verdict)
            return .success
        } catch {
            CommandOutput.markInvalid(&verdict, error)
            CommandOutput.printJSON(verdict)
            return .invalidCredential
        }
    }
}
