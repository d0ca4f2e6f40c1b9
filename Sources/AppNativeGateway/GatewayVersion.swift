/// The gateway's version, printed by `app-native-gateway version` and sent as the outbound `User-Agent`.
public enum GatewayVersion: Sendable {
    public static let current = "0.1.0"
    public static var userAgent: String { "app-native-gateway/\(current)" }
}
