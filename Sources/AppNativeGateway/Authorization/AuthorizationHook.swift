import AppNativeAuth
public import AppNativeClient
public import AppNativeCore
import AppNativeHTTP
import AppNativeProxy

/// The optional upstream authorization hook (`AUTHORIZE_URL`), in the role of the Python
/// reference's `resolve_user`: called with the identity headers; 2xx allows (its `X-Authz-*`
/// response headers travel upstream), 403 denies (answered 403), anything else — including a
/// timeout — answers 503. Results are cached per object id, with separate TTLs for allow and deny.
public final class AuthorizationHook: Sendable {
    public enum Decision: Sendable, Equatable {
        case allow(headers: [HTTPHeaderField])
        case deny
        case unavailable
    }

    /// Response headers with this prefix are passed to the upstream on allow (e.g. the backend's
    /// own user id or roles: `X-Authz-User-Id`, `X-Authz-Roles`).
    public static let passedHeaderPrefix = "x-authz-"

    /// Why a hook response header with the passed prefix was not passed on.
    public enum DroppedHeader: String, Sendable, Equatable, CaseIterable {
        /// The name is not a token (RFC 9110 §5.6.2): a space, a separator, a control or a
        /// non-ASCII byte, which cannot be written in a field line.
        case invalidName = "invalid_name"
        /// The value holds CR, LF, NUL or another control (RFC 9110 §5.5).
        case invalidValue = "invalid_value"
    }

    /// What a hook answer means: the decision and the prefixed headers that were left out of it.
    public struct Answer: Sendable, Equatable {
        public var decision: Decision
        public var dropped: [DroppedHeader]

        public init(decision: Decision, dropped: [DroppedHeader]) {
            self.decision = decision
            self.dropped = dropped
        }
    }

    /// Interprets the hook's answer (its status and response headers; the body is not read).
    /// 2xx allows with every `X-Authz-*` header whose name is a token and whose value is a field
    /// value; the others are dropped and reported, because the hook is a peer and its bytes are
    /// untrusted (they become request fields sent upstream). 403 denies; any other status is
    /// `unavailable`. Pure, so tests and the fuzz harness run exactly what `decide` runs.
    public static func interpret(status: Int, headers: [HTTPHeaderField]) -> Answer {
        switch status {
        case 200..<300:
            var passed: [HTTPHeaderField] = []
            var dropped: [DroppedHeader] = []
            for field in headers where field.name.lowercased().hasPrefix(passedHeaderPrefix) {
                if !HTTPHeaders.isValidFieldName(field.name) {
                    dropped.append(.invalidName)
                } else if !HTTPHeaders.isValidFieldValue(field.value) {
                    dropped.append(.invalidValue)
                } else {
                    passed.append(field)
                }
            }
            return Answer(decision: .allow(headers: passed), dropped: dropped)
        case 403:
            return Answer(decision: .deny, dropped: [])
        default:
            return Answer(decision: .unavailable, dropped: [])
        }
    }

    private let url: String
    private let client: any HTTPFetching
    private let allowTTL: Duration
    private let denyTTL: Duration
    private let time: any TimeSource
    private let cache = Locked<[String: (decision: Decision, expiresAt: Double)]>([:])
    private let latency: Histogram
    private let droppedHeaders: [DroppedHeader: Counter]
    private let logger: Logger

    public init(url: String, allowTTL: Duration, denyTTL: Duration, client: any HTTPFetching = CurlHTTPClient.shared,
                time: any TimeSource = SystemTimeSource(), metrics: MetricsRegistry = .shared, logger: Logger = .disabled) {
        self.url = url
        self.client = client
        self.allowTTL = allowTTL
        self.denyTTL = denyTTL
        self.time = time
        self.logger = logger
        latency = metrics.histogram(MetricCatalogue.authorizeDuration)
        var counters: [DroppedHeader: Counter] = [:]
        for reason in DroppedHeader.allCases {
            counters[reason] = metrics.counter(MetricCatalogue.authorizeDroppedHeaders, labels: ["reason": reason.rawValue])
        }
        droppedHeaders = counters
    }

    /// A cached decision for `objectID`, if still fresh.
    public func cachedDecision(for objectID: String) -> Decision? {
        let now = time.wallSeconds
        return cache.withLock { cache in
            guard let entry = cache[objectID], entry.expiresAt > now else { return nil }
            return entry.decision
        }
    }

    /// Asks the hook (2 s budget) and caches allow and deny; `unavailable` is never cached.
    public func decide(for objectID: String, identityHeaders: [HTTPHeaderField]) async -> Decision {
        var request = HTTPRequest(url: url)
        request.headers = identityHeaders + [HTTPHeaderField(name: "Accept", value: "application/json")]
        request.timeout = .seconds(2)
        request.connectTimeout = .seconds(1)
        request.maxResponseBytes = 64 * 1024
        request.allowsCleartextOnLoopback = true
        let started = time.monotonic
        let decision: Decision
        do {
            let response = try await client.send(request)
            let answer = Self.interpret(status: response.status, headers: response.headers)
            for reason in answer.dropped {
                droppedHeaders[reason]?.increment()
                // Neither the name (it may not be printable) nor the value (it may be a credential).
                logger.warning("authorization hook response header dropped", ["authorize.dropped": reason.rawValue])
            }
            decision = answer.decision
        } catch {
            decision = .unavailable
        }
        latency.observe((time.monotonic - started).seconds)
        let ttl: Duration? = switch decision {
        case .allow: allowTTL
        case .deny: denyTTL
        case .unavailable: nil
        }
        if let ttl {
            let expiresAt = time.wallSeconds + ttl.seconds
            cache.withLock { cache in
                if cache.count > 100_000 { cache.removeAll(keepingCapacity: true) }
                cache[objectID] = (decision, expiresAt)
            }
        }
        return decision
    }
}
