import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import Synchronization

// Unsafe (the apns-id writer): it writes 36 bytes into a string buffer of capacity 36, reads 16
// random bytes of the 16 it asked the pool for, and indexes the 16-byte hex digit table with a nibble.

/// The HTTP/2 client of one credential set: one libcurl multi handle with one long-lived
/// connection multiplexing every stream (a push beyond the server's stream limit waits for a
/// stream to free rather than opening a second connection) and the provider token of its key.
final class APNsConnection: Sendable {
    let configuration: APNsConfiguration
    let tokens: ProviderTokenSource
    private let http: CurlHTTPClient
    private let options: APNsSenderOptions
    private let timeSource: any TimeSource
    private let metrics: APNsMetrics
    private let jitter: @Sendable () -> Double

    init(
        configuration: APNsConfiguration,
        tokens: ProviderTokenSource,
        options: APNsSenderOptions,
        timeSource: any TimeSource,
        metrics: APNsMetrics,
        jitter: @escaping @Sendable () -> Double
    ) {
        self.configuration = configuration
        self.tokens = tokens
        // One multiplexed connection carrying up to `maxConcurrentPushes` streams: corked, a
        // worker turn's frames leave together, and its TLS buffers stay, which lowers the CPU
        // per push (docs/benchmarks.md). Capped at one: Apple asks providers to reuse a
        // connection rather than open many, yet without the cap a push beyond the stream limit
        // opens another. And the limit moves: APNs announces 1 stream after a rejected push until
        // the next success (Apple radar 27870881), and before the server's SETTINGS arrive libcurl
        // assumes 100, so a batch with bad tokens, or a burst on a fresh connection, would open
        // dozens. With the cap those pushes wait for a stream on the one connection.
        http = CurlHTTPClient(userAgent: "app-native-gateway-apns", connectionsStayBusy: true, connectionsPerHost: 1)
        self.options = options
        self.timeSource = timeSource
        self.metrics = metrics
        self.jitter = jitter
    }

    /// Stops the worker; in-flight requests fail with a shut-down result.
    func shutdown() { http.shutdown() }

    /// Sends one push, retrying as the policy allows with the same `apns-id`.
    func send(
        _ notification: APNsNotification,
        body: [UInt8],
        to deviceToken: String
    ) async throws(APNsError) -> APNsResult {
        let apnsID = Self.newAPNsID()
        let fields = try notification.headers(bundleID: configuration.bundleID, apnsID: apnsID)
        var attempt = 0
        while true {
            attempt += 1
            let providerToken = try tokens.token()
            metrics.tokenAge.set(Int(tokens.ageSeconds))
            var request = HTTPRequest(
                url: configuration.endpoint + "/3/device/" + deviceToken,
                method: "POST",
                headers: fields + [
                    HTTPHeaderField(name: "authorization", value: "bearer " + providerToken),
                    HTTPHeaderField(name: "content-type", value: "application/json"),
                ],
                body: body,
                timeout: options.requestTimeout,
                maxResponseBytes: 64 * 1024
            )
            request.connectTimeout = options.connectTimeout
            request.caFile = configuration.caFile
            request.allowsCleartextOnLoopback = true
            request.prefersHTTP2PriorKnowledge = true

            let started = timeSource.monotonic
            metrics.openStreams.add(1)
            let outcome: Result<HTTPResponse, ClientError>
            do {
                outcome = .success(try await http.send(request))
            } catch {
                outcome = .failure(error)
            }
            metrics.openStreams.add(-1)
            metrics.latency.observe((timeSource.monotonic - started).seconds)

            switch outcome {
            case .success(let response):
                var result = Self.result(of: response, deviceToken: deviceToken, apnsID: apnsID, attempts: attempt)
                if let reason = result.reason, reason.invalidatesProviderToken { tokens.reject(providerToken) }
                if !result.sent, APNsRetryPolicy.isRetryable(status: response.status),
                    options.retryPolicy.allowsRetry(afterAttempt: attempt)
                {
                    try await pause(afterAttempt: attempt)
                    continue
                }
                result.attempts = attempt
                return result
            case .failure(let error):
                if Self.isRetryable(error), options.retryPolicy.allowsRetry(afterAttempt: attempt) {
                    try await pause(afterAttempt: attempt)
                    continue
                }
                let transportError: APNsError
                switch error.code {
                case .timeout:
                    transportError = APNsError(.timeout, reason: error.reason)
                case .transport, .connectFailed, .tlsFailed:
                    transportError = APNsError(.connectionFailed, reason: error.reason)
                case .shutDown, .cancelled:
                    transportError = APNsError(.shutDown, reason: error.reason)
                default:
                    throw APNsError(.invalidConfiguration, reason: "request refused before sending: \(error.reason)")
                }
                return APNsResult(
                    deviceToken: deviceToken, sent: false, apnsID: apnsID, attempts: attempt,
                    transportError: transportError)
            }
        }
    }

    /// Transport failures worth another attempt with the same `apns-id`: a lost or refused
    /// connection, and a timeout of a push that was never sent (it waited for a stream; Apple
    /// cannot have delivered it). A push that timed out on the wire may have been delivered, and
    /// a TLS failure would fail again.
    static func isRetryable(_ error: ClientError) -> Bool {
        switch error.code {
        case .transport, .connectFailed: true
        case .timeout: error.wasNeverSent
        default: false
        }
    }

    private func pause(afterAttempt attempt: Int) async throws(APNsError) {
        metrics.retries.increment()
        do {
            try await timeSource.sleep(for: options.retryPolicy.delay(afterAttempt: attempt, jitter: jitter()))
        } catch {
            throw APNsError(.shutDown, reason: "cancelled while waiting to retry")
        }
    }

    /// Apple's answer as a result: 200 is sent; otherwise the JSON `reason` and, for 410, the
    /// `timestamp` (ms). A body that is not Apple's JSON leaves `reason` nil.
    static func result(of response: HTTPResponse, deviceToken: String, apnsID: String, attempts: Int) -> APNsResult {
        let echoedID = response.headers.value(named: "apns-id") ?? apnsID
        if response.status == 200 {
            return APNsResult(deviceToken: deviceToken, sent: true, status: 200, apnsID: echoedID, attempts: attempts)
        }
        var reason: APNsReason?
        var timestamp: Int64?
        if let object = try? JSONParser().parse(response.body).objectValue {
            reason = object["reason"]?.stringValue.map(APNsReason.init)
            timestamp = object["timestamp"]?.numberValue?.int64
        }
        return APNsResult(
            deviceToken: deviceToken, sent: false, reason: reason, status: response.status, apnsID: echoedID,
            unregisteredAt: response.status == 410 ? timestamp : nil, attempts: attempts)
    }

    /// The randomness of `apns-id`s: one `RAND_bytes` call per 32 pushes (a call per id costs as
    /// much as formatting the rest of it), shared by every connection of the process.
    private static let idRandomness = Locked(RandomBytePool(capacity: 512))

    /// A random (version 4) UUID in lower case, Apple's `apns-id` format (8-4-4-4-12 hex digits).
    /// Written as bytes straight into the string: one runs per push.
    static func newAPNsID() -> String {
        idRandomness.withLock { pool in unsafe pool.draw(16, unsafe uuidString) }
    }

    /// The version 4 UUID text of 16 random bytes (RFC 9562 §5.4: version and variant bits set).
    private static func uuidString(_ random: UnsafeBufferPointer<UInt8>) -> String {
        unsafe String(unsafeUninitializedCapacity: 36) { out in
            let digits: StaticString = "0123456789abcdef"
            let hex = unsafe digits.utf8Start
            var written = 0
            for index in 0..<16 {
                var byte = unsafe random[index]
                if index == 6 { byte = (byte & 0x0f) | 0x40 }
                if index == 8 { byte = (byte & 0x3f) | 0x80 }
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    unsafe out[written] = UInt8(ascii: "-")
                    written += 1
                }
                unsafe out[written] = unsafe hex[Int(byte >> 4)]
                unsafe out[written + 1] = unsafe hex[Int(byte & 0x0f)]
                written += 2
            }
            return written
        }
    }
}
