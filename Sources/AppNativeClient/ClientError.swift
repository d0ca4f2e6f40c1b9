public import AppNativeCore

/// The one error type of AppNativeClient (docs/style.md §4).
///
/// `reason` is written for logs. It names the check or the transport step that failed and the
/// host it concerned, never a header value, a body byte, a URL path or query (webhook URLs carry
/// tokens there) or a proxy credential. Equality compares `code` only, so tests match codes.
public struct ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a closed-looking but extensible set of constants: a new code is a new
    /// static constant, so a caller's `switch`-free comparisons keep compiling.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: Sendable, Hashable {
            case invalidURL
            case insecureScheme
            case invalidRequest
            case timeout
            case connectFailed
            case tlsFailed
            case responseTooLarge
            case transport
            case cancelled
            case shutDown
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The URL does not parse, has no host, or carries credentials.
        public static let invalidURL = Code(.invalidURL)
        /// The scheme is not `https`, and not the `http` allowed on a loopback host with
        /// `HTTPRequest.allowsCleartextOnLoopback`; also a redirect towards a disallowed scheme.
        public static let insecureScheme = Code(.insecureScheme)
        /// The method, a header field, a limit or a timeout of the request is not acceptable.
        public static let invalidRequest = Code(.invalidRequest)
        /// The whole-request timeout or the connect timeout expired.
        public static let timeout = Code(.timeout)
        /// The host name did not resolve, or no address accepted the connection.
        public static let connectFailed = Code(.connectFailed)
        /// The TLS handshake failed, or the peer's certificate did not verify.
        public static let tlsFailed = Code(.tlsFailed)
        /// The response body exceeded `maxResponseBytes` (or its headers `maxResponseHeaderBytes`).
        public static let responseTooLarge = Code(.responseTooLarge)
        /// Any other failure while the request was on the wire (reset, protocol error, …).
        public static let transport = Code(.transport)
        /// The calling task was cancelled; the transfer was removed from the engine.
        public static let cancelled = Code(.cancelled)
        /// The client was shut down before the request completed.
        public static let shutDown = Code(.shutDown)

        /// A stable snake-case name, usable as a log value or a metric label.
        public var description: String {
            switch value {
            case .invalidURL: "invalid_url"
            case .insecureScheme: "insecure_scheme"
            case .invalidRequest: "invalid_request"
            case .timeout: "timeout"
            case .connectFailed: "connect_failed"
            case .tlsFailed: "tls_failed"
            case .responseTooLarge: "response_too_large"
            case .transport: "transport"
            case .cancelled: "cancelled"
            case .shutDown: "shut_down"
            }
        }
    }

    /// What went wrong; compare this, not `reason`.
    public let code: Code
    /// A human-readable detail for logs; never contains header values, bodies or URL paths.
    public let reason: String
    /// Where the error was thrown.
    public let location: SourceLocation
    /// True only when the client knows that no byte of the request was handed to a connection:
    /// it failed while connecting, or while waiting for a connection or a stream
    /// (`CurlHTTPClient`'s `connectionsPerHost`). The server cannot have acted on it, so even a
    /// non-idempotent request may be sent again. False means it may have.
    public var wasNeverSent: Bool = false

    /// Creates an error. Public so that fakes of `HTTPFetching` can fail like the real client.
    ///
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - reason: a log-safe detail; the caller guarantees it holds no secret.
    ///   - file: the throwing file, defaulted by the compiler.
    ///   - line: the throwing line, defaulted by the compiler.
    public init(_ code: Code, reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        location = SourceLocation(file: file, line: line)
    }

    /// Errors are equal when their codes are (docs/style.md §4).
    public static func == (lhs: ClientError, rhs: ClientError) -> Bool {
        lhs.code == rhs.code
    }

    /// `code: reason (file:line)`.
    public var description: String { "\(code): \(reason) (\(location))" }
}
