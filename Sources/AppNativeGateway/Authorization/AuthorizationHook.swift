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

    private let url: String
    private let client: any HTTPFetching
    private let allowTTL: Duration
    private let denyTTL: Duration
    private let time: any TimeSource
    private let cache = Locked<[String: (decision: Decision, expiresAt: Double)]>([:])
    private let latency: Histogram

    public init(url: String, allowTTL: Duration, denyTTL: Duration, client: any HTTPFetching = CurlHTTPClient.shared,
                time: any TimeSource = SystemTimeSource(), metrics: MetricsRegistry = .shared) {
        self.url = url
        self.client = client
        self.allowTTL = allowTTL
        self.denyTTL = denyTTL
        self.time = time
        latency = metrics.histogram("authorize.duration_seconds", upperBounds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
                                    help: "Authorization hook latency")
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
            switch response.status {
            case 200..<300:
                decision = .allow(headers: response.headers.filter { $0.name.lowercased().hasPrefix(Self.passedHeaderPrefix) })
            case 403:
                decision = .deny
            default:
                decision = .unavailable
            }
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
