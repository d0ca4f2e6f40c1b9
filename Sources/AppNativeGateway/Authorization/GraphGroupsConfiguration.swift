import AppNativeAuth
public import AppNativeClient
public import AppNativeSignIn

/// The groups overage through Microsoft Graph (`GROUPS_FROM_GRAPH` and what it needs), read only
/// when it is on.
public struct GraphGroupsConfiguration: Sendable {
    /// Microsoft Graph's global endpoint.
    public static let defaultGraphURL = "https://graph.microsoft.com"
    public static let defaultCacheSeconds = 300
    public static let maxCacheSeconds = 86_400

    /// `ENTRA_CLIENT_ID`: the app registration the gateway calls Graph as.
    public var clientID: String
    /// The credential it authenticates with at the token endpoint (the sign-in's).
    public var credential: ClientCredential
    /// `OIDC_DISCOVERY_URL`: where the token endpoint is found.
    public var discoveryURL: String
    /// `GRAPH_URL`, without a trailing `/`.
    public var graphURL: String
    /// `GROUPS_CACHE_SECONDS`.
    public var cacheDuration: Duration
    /// The limit on each call to the token endpoint and to Graph.
    public var callTimeout: Duration = .seconds(5)
    /// Replace the discovery download and the transport (tests).
    public var metadataFetcher: (any ProviderMetadataFetching)?
    public var client: (any HTTPFetching)?

    /// The `scope` of the application token: `https://graph.microsoft.com/.default`, or for a
    /// national cloud's Graph (`https://graph.microsoft.us`, …) that host's `/.default`. A plain
    /// http `GRAPH_URL` (loopback only: a test peer) asks for the global scope.
    public var scope: String {
        graphURL.lowercased().hasPrefix("http://") ? Self.defaultGraphURL + "/.default" : graphURL + "/.default"
    }

    /// The settings `config` lists.
    public static let settings: [Setting] = [
        Setting("GROUPS_FROM_GRAPH", default: "false", section: "Groups", "Resolve a groups overage (`_claim_names.groups`, `hasgroups`, a cookie beyond its budget) under a `groups` rule through Microsoft Graph `getMemberGroups`, with an application token (client credentials of ENTRA_CLIENT_ID and its credential; the token endpoint from OIDC_DISCOVERY_URL). Graph unavailable: 503 with `Retry-After`. Off: 403 `groups_overage`."),
        Setting("GRAPH_URL", default: defaultGraphURL, section: "Groups", "Microsoft Graph's endpoint (https; http only for loopback), e.g. `https://graph.microsoft.us` for US Government L4."),
        Setting("GROUPS_CACHE_SECONDS", default: "\(defaultCacheSeconds)", section: "Groups", "Seconds a user's groups from Graph are kept (per object id and tenant; 0–86400, 0: not kept). Failures are never kept."),
    ]

    /// Reads the settings; `nil` when off or a problem was reported.
    static func read(_ reader: inout EnvironmentReader, entra: EntraConfiguration?) -> GraphGroupsConfiguration? {
        let graphURL = reader.string("GRAPH_URL").map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? defaultGraphURL
        do throws(ClientError) {
            try URLPolicy.validateOutbound(url: graphURL, allowsCleartextOnLoopback: true)
            if graphURL.contains("?") || graphURL.contains("#") { throw ClientError(.invalidURL, reason: "query or fragment") }
        } catch {
            reader.report("GRAPH_URL", "must be https://host[:port] (plain http only for a loopback address), without query or fragment: \(error.code)")
        }
        let cacheSeconds = reader.integer("GROUPS_CACHE_SECONDS", default: defaultCacheSeconds, in: 0...maxCacheSeconds)
        guard reader.boolean("GROUPS_FROM_GRAPH", default: false) else { return nil }
        let problemsBefore = reader.problems.count
        let clientID = reader.string("ENTRA_CLIENT_ID") ?? ""
        if clientID.isEmpty {
            reader.report("ENTRA_CLIENT_ID", "is required when GROUPS_FROM_GRAPH=true (the app registration that calls Microsoft Graph)")
        }
        var credential: ClientCredential?
        do {
            credential = try ClientCredential.fromEnvironment(reader.environment)
            if credential == nil {
                reader.report(
                    "ENTRA_CLIENT_SECRET",
                    "a client credential is required when GROUPS_FROM_GRAPH=true: ENTRA_CLIENT_SECRET, ENTRA_CLIENT_CERTIFICATE_FILE with ENTRA_CLIENT_KEY_FILE, or AZURE_FEDERATED_TOKEN_FILE")
            }
        } catch {
            reader.report(error.variable, error.message)
        }
        let discoveryURL = BrowserSignInConfiguration.readDiscoveryURL(&reader, entra: entra)
        guard reader.problems.count == problemsBefore, let credential, let discoveryURL else { return nil }
        return GraphGroupsConfiguration(
            clientID: clientID, credential: credential, discoveryURL: discoveryURL, graphURL: graphURL,
            cacheDuration: .seconds(cacheSeconds))
    }
}
