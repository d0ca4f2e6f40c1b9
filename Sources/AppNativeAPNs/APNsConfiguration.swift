public import AppNativeCore
import AppNativeClient
import AppNativeCrypto

/// The credentials and endpoint of one APNs sender (`ApnsConfig`, contract/apns.md §3).
///
/// The key is held as a `Secret` and never printed: `description` and reflection show only the
/// key id, team id, bundle id and environment.
public struct APNsConfiguration: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// Production APNs.
    public static let productionURL = "https://api.push.apple.com"
    /// Sandbox APNs (`api.development.push.apple.com` is the same service).
    public static let sandboxURL = "https://api.sandbox.push.apple.com"

    /// The normalised `.p8` PEM text.
    public let key: Secret<String>
    /// The 10-character key id (`kid`).
    public let keyID: String
    /// The team id (`iss`).
    public let teamID: String
    /// The app's bundle id (`apns-topic`).
    public let bundleID: String
    /// Sandbox (the default) or production.
    public let usesSandbox: Bool
    /// Replaces the Apple host (tests): `http://` means cleartext HTTP/2 with prior knowledge,
    /// allowed on loopback only; `https://` is verified, against `caFile` when given.
    public let baseURL: String?
    /// A PEM bundle to trust instead of the system store for `https` (test CAs).
    public let caFile: String?

    /// Creates a configuration, normalising and checking the key as contract/apns.md §3 says.
    ///
    /// - Parameters:
    ///   - key: PEM text of a PKCS #8 P-256 key; literal `\n` pairs become newlines. Not a path.
    ///   - keyID: the key id; must not be empty.
    ///   - teamID: the team id; must not be empty.
    ///   - bundleID: the bundle id; must not be empty.
    ///   - usesSandbox: whether to use the sandbox host (default true).
    ///   - baseURL: an endpoint override (tests).
    ///   - caFile: a trust anchor for `https` overrides.
    /// - Throws: `.missingConfiguration` for an empty field, `.invalidConfiguration` for a key
    ///   that is not PEM text or not a P-256 key, or a base URL the outbound policy refuses.
    public init(
        key: String,
        keyID: String,
        teamID: String,
        bundleID: String,
        usesSandbox: Bool = true,
        baseURL: String? = nil,
        caFile: String? = nil
    ) throws(APNsError) {
        let trimmedIDs = [("key id", keyID), ("team id", teamID), ("bundle id", bundleID)]
        for (name, value) in trimmedIDs where value.isEmpty {
            throw APNsError(.missingConfiguration, reason: "APNs \(name) is missing")
        }
        self.key = Secret(try Self.normalizedKey(key, name: "APNs key"))
        self.keyID = keyID
        self.teamID = teamID
        self.bundleID = bundleID
        self.usesSandbox = usesSandbox
        if let baseURL {
            do {
                try URLPolicy.validateOutbound(url: baseURL, allowsCleartextOnLoopback: true)
            } catch {
                throw APNsError(.invalidConfiguration, reason: "APNs base URL refused: \(error.reason)")
            }
        }
        self.baseURL = baseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.caFile = caFile.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Reads `APNS_KEY`, `APNS_KEY_ID`, `APNS_TEAM_ID`, `APNS_BUNDLE_ID`, `APNS_USE_SANDBOX`,
    /// `APNS_BASE_URL` and `APNS_CA_FILE` (contract/apns.md §3): the three ids first (one error naming
    /// all four variables), then the key; sandbox unless `APNS_USE_SANDBOX` reads as false
    /// (``BooleanSetting``: `false`, `0`, `no`, `off`).
    ///
    /// - Throws: `.missingConfiguration` or `.invalidConfiguration`.
    public static func fromEnvironment(_ environment: [String: String]) throws(APNsError) -> APNsConfiguration {
        let ids = ["APNS_KEY_ID", "APNS_TEAM_ID", "APNS_BUNDLE_ID"]
        let missing = ids.filter { (environment[$0] ?? "").trimmingASCIIWhitespace.isEmpty }
        guard missing.isEmpty else {
            throw APNsError(
                .missingConfiguration,
                reason: "APNs is not configured: set APNS_KEY, APNS_KEY_ID, APNS_TEAM_ID and APNS_BUNDLE_ID "
                    + "(missing: \(missing.joined(separator: ", ")))")
        }
        let key = try normalizedKey(environment["APNS_KEY"] ?? "", name: "APNS_KEY")
        let sandbox: Bool
        do {
            sandbox = try BooleanSetting.read("APNS_USE_SANDBOX", from: environment, default: true)
        } catch {
            throw APNsError(.invalidConfiguration, reason: error.description)
        }
        let baseURL = environment["APNS_BASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        return try APNsConfiguration(
            key: key,
            keyID: environment["APNS_KEY_ID", default: ""].trimmingASCIIWhitespace,
            teamID: environment["APNS_TEAM_ID", default: ""].trimmingASCIIWhitespace,
            bundleID: environment["APNS_BUNDLE_ID", default: ""].trimmingASCIIWhitespace,
            usesSandbox: sandbox,
            baseURL: baseURL,
            caFile: environment["APNS_CA_FILE"]
        )
    }

    /// `\n` escapes to newlines, trimmed; must be PEM text (a file path such as
    /// `./keys/AuthKey.p8` is caught here) and parse as a PKCS #8 P-256 key.
    static func normalizedKey(_ raw: String, name: String) throws(APNsError) -> String {
        let text = raw.replacing("\\n", with: "\n").trimmingASCIIWhitespace
        guard !text.isEmpty else { throw APNsError(.missingConfiguration, reason: "\(name) is missing") }
        // Any PEM block passes this first check; the parse below insists on a PKCS #8 P-256 key.
        guard text.hasPrefix("-----BEGIN ") else {
            throw APNsError(
                .invalidConfiguration,
                reason: "\(name) is not PEM text (expected the contents of the .p8 file, not its path)")
        }
        do {
            _ = try P256SigningKey(pkcs8PEM: text)
        } catch {
            throw APNsError(.invalidConfiguration, reason: "\(name) is not a P-256 private key: \(error.code)")
        }
        return text
    }

    /// The URL requests go to, without the path.
    public var endpoint: String { baseURL ?? (usesSandbox ? Self.sandboxURL : Self.productionURL) }

    /// The client-cache key: every field, the key only as its SHA-256 digest (contract/apns.md §3).
    var cacheKey: CacheKey {
        CacheKey(
            keyID: keyID, teamID: teamID, bundleID: bundleID, usesSandbox: usesSandbox,
            keyDigest: SHA256.digest(key.revealed), baseURL: baseURL, caFile: caFile)
    }

    struct CacheKey: Hashable, Sendable {
        var keyID: String
        var teamID: String
        var bundleID: String
        var usesSandbox: Bool
        var keyDigest: SHA256Digest
        var baseURL: String?
        var caFile: String?

        /// Clients for the same app and environment are replaced when the key or key id changes.
        func replaces(_ other: CacheKey) -> Bool {
            teamID == other.teamID && bundleID == other.bundleID && usesSandbox == other.usesSandbox
        }
    }

    /// Equal when every field is, the key compared by digest.
    public static func == (lhs: APNsConfiguration, rhs: APNsConfiguration) -> Bool {
        lhs.cacheKey == rhs.cacheKey
    }

    /// Names the ids and the environment; never the key.
    public var description: String {
        "APNsConfiguration(keyID: \(keyID), teamID: \(teamID), bundleID: \(bundleID), "
            + "sandbox: \(usesSandbox), endpoint: \(endpoint), key: [redacted])"
    }

    /// Reflection shows the description only, so `dump` cannot reach the key.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

/// Supplies credentials at run time (a secret store, a per-tenant lookup). Called before every
/// send that has no explicit configuration, so keep it cheap; `nil` falls back to the environment.
public typealias APNsConfigurationProvider = @Sendable () async throws -> APNsConfiguration?

extension String {
    var trimmingASCIIWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
