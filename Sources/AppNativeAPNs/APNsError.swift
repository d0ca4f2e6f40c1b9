public import AppNativeCore

/// The one error type of AppNativeAPNs (docs/style.md §4).
///
/// Thrown for what makes a push impossible before it is sent: missing or invalid credentials,
/// an invalid payload, a payload over Apple's limit, an invalid device token. Apple's answers are
/// never thrown: they are `APNsResult` values. A transport failure that outlived every retry is a
/// result too (`APNsResult.transportError`), so a batch keeps one result per device.
///
/// `reason` never contains key material, a provider token or a device token.
public struct APNsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong; extensible without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: Sendable, Hashable {
            case missingConfiguration
            case invalidConfiguration
            case invalidPayload
            case payloadTooLarge
            case invalidDeviceToken
            case signingFailed
            case timeout
            case connectionFailed
            case shutDown
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// No credentials anywhere (explicit, provider, environment), or a required part is empty.
        public static let missingConfiguration = Code(.missingConfiguration)
        /// A credential is present but unusable (key not PEM, not a P-256 key, bad base URL).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A builder input breaks a contract rule (e.g. a Live Activity update without state,
        /// `aps` inside `data`, a collapse id over 64 bytes).
        public static let invalidPayload = Code(.invalidPayload)
        /// The serialised payload is larger than Apple's 4096 bytes; nothing was sent.
        public static let payloadTooLarge = Code(.payloadTooLarge)
        /// The device token is empty, too long or not hexadecimal.
        public static let invalidDeviceToken = Code(.invalidDeviceToken)
        /// The provider token could not be signed.
        public static let signingFailed = Code(.signingFailed)
        /// The request timed out (a stall); not retried, since Apple may have delivered it.
        public static let timeout = Code(.timeout)
        /// The connection failed or was lost on every attempt.
        public static let connectionFailed = Code(.connectionFailed)
        /// The sender was shut down.
        public static let shutDown = Code(.shutDown)

        /// A stable snake-case name for logs, JSON and metric labels.
        public var description: String {
            switch value {
            case .missingConfiguration: "missing_configuration"
            case .invalidConfiguration: "invalid_configuration"
            case .invalidPayload: "invalid_payload"
            case .payloadTooLarge: "payload_too_large"
            case .invalidDeviceToken: "invalid_device_token"
            case .signingFailed: "signing_failed"
            case .timeout: "timeout"
            case .connectionFailed: "connection_failed"
            case .shutDown: "shut_down"
            }
        }
    }

    /// What went wrong; compare this, not `reason`.
    public let code: Code
    /// A log-safe detail.
    public let reason: String
    /// Where the error was thrown.
    public let location: SourceLocation

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - reason: a detail that holds no secret.
    public init(_ code: Code, reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        location = SourceLocation(file: file, line: line)
    }

    /// Errors are equal when their codes are (docs/style.md §4).
    public static func == (lhs: APNsError, rhs: APNsError) -> Bool { lhs.code == rhs.code }

    /// `code: reason (file:line)`.
    public var description: String { "\(code): \(reason) (\(location))" }
}
