public import AppNativeCore

/// The push API settings (`PUSH_API_KEYS`, `PUSH_MAX_BATCH`, `DEAD_TOKEN_WEBHOOK_URL`) and the
/// environment the APNs sender reads its `APNS_*` credentials from.
public struct PushAPIConfiguration: Sendable {
    /// The default and the ceiling of `PUSH_MAX_BATCH`.
    public static let defaultMaxBatch = 500
    public static let maxBatchCeiling = 10_000

    /// Accepted API keys; empty turns the API off (404).
    public var apiKeys: [Secret<String>]
    /// Device tokens per request.
    public var maxBatch: Int
    /// Called with the tokens Apple reported permanently invalid.
    public var deadTokenWebhookURL: String?
    /// Where `APNS_*` are read.
    public var apnsEnvironment: [String: String]

    /// Creates a configuration (tests; `serve` reads it from the environment).
    public init(
        apiKeys: [Secret<String>] = [],
        maxBatch: Int = defaultMaxBatch,
        deadTokenWebhookURL: String? = nil,
        apnsEnvironment: [String: String] = [:]
    ) {
        self.apiKeys = apiKeys
        self.maxBatch = maxBatch
        self.deadTokenWebhookURL = deadTokenWebhookURL
        self.apnsEnvironment = apnsEnvironment
    }

    /// Whether the API is served.
    public var isEnabled: Bool { !apiKeys.isEmpty }
}
