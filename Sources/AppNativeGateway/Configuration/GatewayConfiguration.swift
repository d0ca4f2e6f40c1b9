import AppNativeAPNs
import AppNativeCore
public import AppNativeAuth
import AppNativeClient
public import AppNativeCrypto
import AppNativeHTTP
public import AppNativeIdentity
public import AppNativeProxy
import AppNativeRoutes
public import AppNativeServer
import Foundation

/// Everything `serve` needs, read from the environment with every problem reported at once.
public struct GatewayConfiguration: Sendable {
    public var server: ServerConfiguration
    public var adminAddress: SocketAddress
    /// `UPSTREAM_URL`: the one upstream, or with `ROUTES_FILE` the catch-all route `/`.
    public var upstream: UpstreamConfiguration?
    /// What every upstream URL shares (timeouts, CA bundle, lookups, `Host`).
    public var upstreamSettings: UpstreamSettings
    /// `ROUTES_FILE`, when set.
    public var routesFile: String?
    /// The routes at start-up: `ROUTES_FILE`'s, or `UPSTREAM_URL` alone.
    var routes: RouteSet
    /// The routes' names at start-up, in the file's order (`default` for `UPSTREAM_URL`).
    public var routeNames: [String] { routes.table.routes.map(\.name) }
    public var trustedProxies: TrustedProxies
    /// Whether client requests keep their method-override fields (`PASS_METHOD_OVERRIDE`;
    /// `RemovedRequestFields`).
    public var passesMethodOverride: Bool
    public var shutdownGracePeriod: Duration
    public var isAccessLogEnabled: Bool
    public var identity: IdentityConfiguration
    public var native: NativeRoutesConfiguration
    /// Served at `/.well-known/apple-app-site-association` when `APPLE_APP_IDS` is set.
    public var appSiteAssociation: AppleAppSiteAssociation?
    /// The push API and the APNs credentials it sends with.
    public var push: PushAPIConfiguration
    /// The secret settings read from files (`…_FILE`), read again on `SIGHUP`; its environment
    /// holds every setting with the files' values in (what the values are built from again).
    public var secretFiles = SecretFiles(resolving: [:])
    /// W3C Trace Context and the OTLP export of spans (OpenTelemetry's `OTEL_*` variables).
    public var tracing = TracingConfiguration()

    /// The settings `serve` reads, in the order of the reference table.
    public static let settings: [Setting] = [
        Setting("LISTEN", default: "0.0.0.0:8080", section: "Listeners", "Address of the gateway (`host:port`, `[v6]:port`)."),
        Setting("ADMIN_LISTEN", default: "127.0.0.1:9090", section: "Listeners", "Admin listener: `/healthz`, `/readyz`, `/metrics`. Keep it internal."),
        Setting("EVENT_LOOPS", default: "number of cores", section: "Listeners", "Event loops (threads), each with its own SO_REUSEPORT listener."),
        Setting("UPSTREAM_URL", section: "Upstream", "Required unless ROUTES_FILE is set. `http(s)://host[:port][/prefix]` of the backend (the prefix percent-encoded, no `?` or `#`); https is verified (TLS 1.2+) for the URL's host. A host name is looked up again every `UPSTREAM_DNS_REFRESH` and every address it lists is used; one that does not resolve yet does not stop the gateway. With ROUTES_FILE it is the catch-all route `/` (named `default`)."),
        Setting("ROUTES_FILE", section: "Upstream", "JSON file `{\"routes\": […]}`: several backends by host and path prefix, each with its own upstream URLs, public paths, access policy, path stripping, `Host`, timeouts, native routes and identity header profile (see docs/routes.md). Re-read on SIGHUP (an unusable file keeps the routes in force)."),
        Setting("TLS_CERT_FILE", section: "Listeners", "PEM certificate chain: terminate TLS (1.2+) on LISTEN. Reloaded on SIGHUP."),
        Setting("TLS_KEY_FILE", section: "Listeners", "PEM private key matching TLS_CERT_FILE. Reloaded on SIGHUP."),
        Setting("HTTP2", default: "true", section: "Listeners", "HTTP/2 toward clients: ALPN offers `h2` and `http/1.1` on TLS; on cleartext a client may start HTTP/2 with prior knowledge (the connection preface), HTTP/1.1 keeps working on the same port (no h2c `Upgrade`). Every stream is an exchange with the rules of an HTTP/1.1 request; the upstream stays HTTP/1.1. WebSockets may run over HTTP/2 streams (RFC 8441, SETTINGS_ENABLE_CONNECT_PROTOCOL): the gateway speaks the HTTP/1.1 upgrade to the upstream."),
        Setting("UPSTREAM_DNS_REFRESH", default: "30", section: "Upstream", "Seconds between lookups of the upstream URLs' host names (off the event loops); new connections go to the current addresses, pooled ones to dropped addresses are retired once idle. A name that does not resolve yet is retried every second (`/readyz` not ready, requests 502)."),
        Setting("UPSTREAM_EJECT_SECONDS", default: "10", section: "Upstream", "Seconds an upstream address whose connect was refused or timed out is skipped (the request moves to the next address); when every address is ejected, the least recently ejected is still tried."),
        Setting("UPSTREAM_HOST_HEADER", default: "client", section: "Upstream", "`Host` sent upstream: `client` (the client's) or `upstream` (the URL's `host[:port]`, for backends addressed by their own name such as Azure App Service); `X-Forwarded-Host` keeps the client's either way."),
        Setting("UPSTREAM_CA_FILE", section: "Upstream", "PEM CA bundle to verify an https upstream (default: the system store)."),
        Setting("TRUSTED_PROXIES", section: "Upstream", "CIDR list of proxies whose `X-Forwarded-*`/`Forwarded` are extended; from others they are replaced."),
        Setting("PASS_METHOD_OVERRIDE", default: "false", section: "Upstream", "Keep `X-HTTP-Method-Override`, `X-HTTP-Method` and `X-Method-Override` on upstream requests (backends whose clients cannot send every method). `X-Original-URL` and `X-Rewrite-URL` are always removed."),
        Setting("UPSTREAM_CONNECT_TIMEOUT", default: "5", section: "Timeouts", "Seconds to establish an upstream connection (502 after)."),
        Setting("UPSTREAM_RESPONSE_TIMEOUT", default: "60", section: "Timeouts", "Seconds from request sent to response head (504 after)."),
        Setting("UPSTREAM_IDLE_TIMEOUT", default: "60", section: "Timeouts", "Seconds an idle pooled upstream connection is kept."),
        Setting("HEADER_TIMEOUT", default: "10", section: "Timeouts", "Seconds to receive a request head (408 after)."),
        Setting("BODY_IDLE_TIMEOUT", default: "60", section: "Timeouts", "Longest pause inside a request body (408 after; over HTTP/2 per stream, RST_STREAM once its response started)."),
        Setting("KEEPALIVE_TIMEOUT", default: "75", section: "Timeouts", "Seconds an idle client connection is kept."),
        Setting("WRITE_TIMEOUT", default: "60", section: "Timeouts", "Seconds queued response bytes may wait for a client that does not read (over HTTP/2 also per stream: no progress through its window, then RST_STREAM)."),
        Setting("SHUTDOWN_GRACE_PERIOD", default: "25", section: "Timeouts", "Seconds in-flight requests get after SIGTERM."),
        Setting("MAX_CONNECTIONS", default: "10000", section: "Limits", "Client connections across all loops; more are closed at once."),
        Setting("MAX_REQUEST_LINE_BYTES", default: "8192", section: "Limits", "Longer request lines get 414."),
        Setting("MAX_HEADER_BYTES", default: "65536", section: "Limits", "Larger header sections get 431."),
        Setting("MAX_HEADER_COUNT", default: "100", section: "Limits", "More header fields get 431."),
        Setting("MAX_BODY_BYTES", default: "unlimited", section: "Limits", "Larger request bodies get 413 as soon as the size is known."),
        Setting("UPSTREAM_MAX_IDLE", default: "64", section: "Limits", "Idle upstream connections kept per event loop."),
        Setting("HTTP2_MAX_CONCURRENT_STREAMS", default: "100", section: "Limits", "HTTP/2: streams a client may have open on one connection (advertised; one more is refused with REFUSED_STREAM; a stream the client reset counts until its exchange ended)."),
        Setting("HTTP2_STREAM_WINDOW_BYTES", default: "65535", section: "Limits", "HTTP/2: request body bytes a stream may send ahead of what the gateway forwarded (its flow-control window)."),
        Setting("HTTP2_CONNECTION_WINDOW_BYTES", default: "1048576", section: "Limits", "HTTP/2: request body bytes all streams of a connection may send ahead of what the gateway forwarded."),
        Setting("HTTP2_STREAM_BUFFER_BYTES", default: "65536", section: "Limits", "HTTP/2: response bytes buffered per stream (waiting for the client's window) before the upstream is paused; the connection buffers at most 8 times as much."),
        Setting("HTTP2_RESET_BURST", default: "1000", section: "Limits", "HTTP/2: streams a client may reset in a burst before the rate below applies (rapid reset, CVE-2023-44487); beyond it the connection ends with GOAWAY."),
        Setting("HTTP2_RESETS_PER_SECOND", default: "33", section: "Limits", "HTTP/2: the rate at which the reset allowance refills after the burst."),
        Setting("HTTP2_MAX_CONTINUATIONS", default: "8", section: "Limits", "HTTP/2: CONTINUATION frames one header block may take (the CONTINUATION flood); one more ends the connection."),
        Setting("HTTP2_MAX_SETTINGS_ENTRIES", default: "32", section: "Limits", "HTTP/2: entries one SETTINGS frame may carry; more end the connection."),
        Setting("HTTP2_MAX_EMPTY_FRAMES", default: "1000", section: "Limits", "HTTP/2: empty DATA, HEADERS and CONTINUATION frames without END_STREAM one connection may send; one more ends it with GOAWAY ENHANCE_YOUR_CALM."),
        Setting("HTTP2_MAX_QUEUED_ACKS", default: "1000", section: "Limits", "HTTP/2: SETTINGS and PING acknowledgements queued for a client that does not read them; one more ends the connection (SETTINGS and PING floods)."),
        Setting("ACCESS_LOG", default: "true", section: "Operations", "One JSON line per request on standard output."),
        Setting("ENTRA_TENANT_ID", section: "Entra ID", "Required. Tenant GUID (`common`, `organizations`, `consumers`, domains refused)."),
        Setting("ENTRA_AUDIENCE", section: "Entra ID", "Accept ID tokens: the iOS app's client id(s), comma-separated (v2 issuer)."),
        Setting("ENTRA_API_CLIENT_ID", section: "Entra ID", "Accept access tokens for the API: its client id (`aud` `{id}` v2, `api://{id}` v1). Set this, ENTRA_AUDIENCE or both (both kinds accepted, each by its own rules)."),
        Setting("ENTRA_ALLOWED_AUDIENCES", section: "Entra ID", "Access tokens: extra accepted `aud` values (a custom App ID URI)."),
        Setting("ENTRA_REQUIRED_SCOPES", default: "access_as_user", section: "Entra ID", "Access tokens: a user's (delegated) token needs at least one of these scopes in `scp`, comma-separated; none: 403 `scope`. Needs ENTRA_API_CLIENT_ID."),
        Setting("ENTRA_APP_CLIENTS", section: "Entra ID", "Access tokens: client application ids allowed to call with app-only (client-credentials) tokens, comma-separated. Unset: app-only tokens get 403 `app_only`; another client 403 `app_not_allowed`. Needs ENTRA_API_CLIENT_ID."),
        Setting("ENTRA_AUTHORITY_HOST", default: "login.microsoftonline.com", section: "Entra ID", "Sovereign clouds: `login.microsoftonline.us`, `login.partner.microsoftonline.cn`."),
        Setting("ENTRA_JWKS_URL", default: "https://{host}/{tenant}/discovery/v2.0/keys", section: "Entra ID", "Key-set URL (https; http only for loopback)."),
        Setting("TOKEN_CACHE_SIZE", default: "10000", section: "Entra ID", "Verified tokens kept (LRU, keyed by the token itself; by its SHA-256 above 4 KiB)."),
        Setting("SESSION_SECRET", section: "Session cookie", secret: true, "HMAC secret (≥ 32 bytes). Unset: no cookies (token-only)."),
        SecretFiles.setting(for: "SESSION_SECRET", section: "Session cookie"),
        Setting("SESSION_SECRET_PREVIOUS", section: "Session cookie", secret: true, "Older secrets still accepted, comma-separated (rotation)."),
        SecretFiles.setting(for: "SESSION_SECRET_PREVIOUS", section: "Session cookie"),
        Setting("SESSION_COOKIE_NAME", default: "bms_session", section: "Session cookie", "Cookie name; `__Host-…` (the deploy templates use `__Host-bms_session`: no sibling subdomain can set it) requires SESSION_SECURE=true. Several cookies of the name in one request: every valid one must name the same user (the first is used), else the request has no session."),
        Setting("SESSION_MAX_AGE", default: "28800", section: "Session cookie", "Cookie lifetime, seconds (at most 34560000, 400 days)."),
        Setting("SESSION_SECURE", default: "true", section: "Session cookie", "`Secure` attribute."),
        Setting("SESSION_SAME_SITE", default: "lax", section: "Session cookie", "`lax` or `strict`."),
        Setting("SESSION_AUDIENCE", default: "appnative:{client ids}", section: "Session cookie", "This deployment's name in the cookie's `aud` (1–256 visible ASCII characters); a cookie naming another deployment is refused. Default: `appnative:` and the sorted Entra client ids (ENTRA_API_CLIENT_ID or ENTRA_AUDIENCE, and ENTRA_CLIENT_ID when set), joined by `,`."),
        Setting("SESSION_ACCEPT_REFERENCE_COOKIES", default: "false", section: "Session cookie", "Migration only (docs/migration.md): also read cookies the Python reference issued, which name no deployment."),
        Setting("IDENTITY_HEADERS", default: "gateway", section: "Identity", "`gateway`, `easyauth` (App Service) or `oauth2-proxy` header profile."),
        Setting("PASS_AUTHORIZATION", default: "false", section: "Identity", "Keep `Authorization` on upstream requests (backends still checking tokens)."),
        Setting("ASSERTION_KEYS", section: "Identity", secret: true, "PEM P-256 private key(s) signing `X-AppNative-Identity`; all published, the first signs. Unset: an ephemeral key (replicas disagree)."),
        SecretFiles.setting(for: "ASSERTION_KEYS", section: "Identity"),
        Setting("ASSERTION_AUDIENCE", default: "app-native-upstream", section: "Identity", "`aud` of the identity assertion."),
        Setting("PUBLIC_PATHS", section: "Identity", "Path prefixes served without credentials, comma-separated; matched on segment boundaries (`/public` covers `/public/x`, not `/publication`)."),
        Setting("AUTH_PATH_PREFIX", default: "/.auth/", section: "Identity", "Prefix of the gateway's endpoints: me, session, logout, verify, jwks.json."),
        Setting("CLOCK_SKEW_LEEWAY", default: "60", section: "Identity", "Seconds (0–300) an Entra token is still accepted after its `exp` (and before its `nbf`/`iat`). Session cookies have a fixed 30 s."),
        Setting("CREDENTIAL_EXPIRY_GRACE", default: "60", section: "Identity", "Seconds after a credential's expiry at which its WebSocket tunnel or event stream is closed; at least CLOCK_SKEW_LEEWAY, and at least 30 with SESSION_SECRET (else `config check` refuses it), so the expired credential cannot reopen it."),
        Setting("AUTHORIZE_URL", section: "Identity", "Optional hook called with the identity headers: 2xx allows (its `X-Authz-*` headers go upstream), 403 denies, else 503."),
        Setting("AUTHORIZE_CACHE_SECONDS", default: "60,10", section: "Identity", "Hook results cached per object id: `allow[,deny]` seconds."),
        Setting("ACCESS_POLICY_FILE", section: "Identity", "JSON rules by path prefix and method requiring roles or groups; first match wins (see docs/identity.md). Re-read on SIGHUP (an unusable file keeps the policy in force)."),
        Setting("ALLOWED_ORIGINS", section: "Identity", "Origins allowed for cookie-authenticated state changes and WebSocket handshakes (default: the request's own host)."),
        Setting("NATIVE_ROUTES", default: "true", section: "Native routes", "Serve the app's ten native routes (validated, then forwarded); false proxies them like any path."),
        Setting("NATIVE_PREFIX", default: "/api", section: "Native routes", "Mount prefix of the native routes (`{p}/devices`, `{p}/widgets`, …)."),
        Setting("NATIVE_UPSTREAM_<ROUTE>_URL", section: "Native routes", "Per-route URL instead of the same path on UPSTREAM_URL (`<ROUTE>`: DEVICES, LOCATIONS, DOCUMENTS, NOTIFICATION_ACTIONS, WIDGETS, WIDGET_ACTIONS, WIDGET_OPTIONS, APPROVALS, APPROVAL_DECISIONS, LIVE_ACTIVITIES); its host is re-resolved, its addresses used and ejected, and its `Host` chosen, as `UPSTREAM_URL`'s."),
        Setting("DOCUMENT_MAX_BYTES", default: String(NativeRouteLimits.defaultMaxDocumentBytes), section: "Native routes", "Largest document upload (413 as soon as it is passed; exactly this many bytes is accepted)."),
        Setting("NATIVE_MAX_JSON_BYTES", default: String(NativeRouteLimits.defaultMaxJSONBodyBytes), section: "Native routes", "Largest JSON body of a native route (413 before any decoding)."),
        Setting("APPLE_APP_IDS", section: "Native routes", "`TEAMID.bundle.id` list: serve `/.well-known/apple-app-site-association` (else the upstream's)."),
        Setting("APPLE_APP_EXCLUDED_PATHS", section: "Native routes", "Extra path patterns never opened in the app (the native prefix and AUTH_PATH_PREFIX always are)."),
        Setting("PUSH_API_KEYS", section: "Push", secret: true, "API keys of the push API (`POST /push/<kind>` on the admin listener, `Authorization: Bearer <key>`), comma-separated. Unset: the API is off."),
        SecretFiles.setting(for: "PUSH_API_KEYS", section: "Push"),
        Setting("PUSH_API_LISTEN", default: "the admin listener", section: "Push", "A listener of its own for the push API (`host:port`); then the admin listener does not serve it."),
        Setting("PUSH_MAX_BATCH", default: "500", section: "Push", "Most device tokens in one push API request (1–10000)."),
        Setting("DEAD_TOKEN_WEBHOOK_URL", section: "Push", "Called (POST JSON) with the tokens Apple reported permanently invalid (`BadDeviceToken`, `Unregistered`)."),
        Setting("APNS_KEY", section: "Push", secret: true, "Contents of the APNs `.p8` key (PKCS #8 PEM; `\\n` escapes allowed), not a path (APNS_KEY_FILE takes a path). Required with PUSH_API_KEYS."),
        SecretFiles.setting(for: "APNS_KEY", section: "Push"),
        Setting("APNS_KEY_ID", section: "Push", "The key's 10-character id (provider-token `kid`)."),
        Setting("APNS_TEAM_ID", section: "Push", "Apple team id (provider-token `iss`)."),
        Setting("APNS_BUNDLE_ID", section: "Push", "The app's bundle id (`apns-topic`)."),
        Setting("APNS_USE_SANDBOX", default: "true", section: "Push", "APNs sandbox (development builds of the app); `false` sends to production."),
        Setting("APNS_BASE_URL", section: "Push", "Tests only: replaces the Apple host; `http://` is cleartext HTTP/2 (prior knowledge) and loopback only."),
        Setting("APNS_CA_FILE", section: "Push", "Tests only: PEM CA bundle trusted for an `https` APNS_BASE_URL."),
    ] + BrowserSignInConfiguration.settings + GraphGroupsConfiguration.settings + TracingConfiguration.settings

    public static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> GatewayConfiguration {
        // The secret files first: every reader below sees one value whichever form set it.
        let secretFiles = SecretFiles(resolving: environment)
        var reader = EnvironmentReader(secretFiles.environment)
        for problem in secretFiles.problems { reader.report(problem.variable, problem.message) }
        func address(_ name: String, _ fallback: String) -> SocketAddress {
            let text = reader.string(name) ?? fallback
            do {
                return try SocketAddress(parsing: text)
            } catch {
                reader.report(name, error.description)
                return SocketAddress(host: "127.0.0.1", port: 0, family: .inet4)
            }
        }
        let listen = address("LISTEN", "0.0.0.0:8080")
        let admin = address("ADMIN_LISTEN", "127.0.0.1:9090")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let loops = reader.integer("EVENT_LOOPS", default: cores, in: 1...256)

        var upstreamSettings = UpstreamSettings()
        upstreamSettings.caFile = reader.string("UPSTREAM_CA_FILE")
        upstreamSettings.connectTimeout = reader.duration("UPSTREAM_CONNECT_TIMEOUT", default: .seconds(5))
        upstreamSettings.responseTimeout = reader.duration("UPSTREAM_RESPONSE_TIMEOUT", default: .seconds(60))
        upstreamSettings.idleTimeout = reader.duration("UPSTREAM_IDLE_TIMEOUT", default: .seconds(60))
        upstreamSettings.maxIdleConnectionsPerLoop = reader.integer("UPSTREAM_MAX_IDLE", default: 64, in: 0...10_000)
        upstreamSettings.dnsRefresh = .seconds(reader.integer("UPSTREAM_DNS_REFRESH", default: 30, in: 1...86_400))
        upstreamSettings.ejection = .seconds(reader.integer("UPSTREAM_EJECT_SECONDS", default: 10, in: 1...3_600))
        if let mode = reader.string("UPSTREAM_HOST_HEADER") {
            if let parsed = UpstreamHostHeader(rawValue: mode.lowercased()) {
                upstreamSettings.hostHeader = parsed
            } else {
                reader.report("UPSTREAM_HOST_HEADER", "must be client or upstream, got \(mode.debugDescription)")
            }
        }
        var upstream: UpstreamConfiguration?
        let routesFile = reader.string("ROUTES_FILE")
        if let url = reader.string("UPSTREAM_URL") {
            do {
                upstream = try upstreamSettings.configuration(url: url)
            } catch {
                reader.report("UPSTREAM_URL", error.description)
            }
        } else if routesFile == nil {
            reader.report("UPSTREAM_URL", "is required unless ROUTES_FILE is set (the backend behind the gateway, e.g. http://127.0.0.1:8000)")
        }
        // A placeholder while a problem is reported: `finish` throws before it is used.
        var routes = RouteSet.single(upstream ?? UpstreamConfiguration(address: SocketAddress(host: "127.0.0.1", port: 1, family: .inet4), hostHeader: "upstream"))
        if let routesFile {
            switch RoutesFile.load(path: routesFile).flatMap({ RouteSet.build($0, catchAll: upstream, settings: upstreamSettings) }) {
            case .success(let set):
                routes = set
            case .failure(let invalid):
                for problem in invalid.problems { reader.report("ROUTES_FILE", problem.description) }
            }
        }

        var trusted = TrustedProxies.none
        if let list = reader.string("TRUSTED_PROXIES") {
            do {
                trusted = try TrustedProxies(parsing: list)
            } catch {
                reader.report("TRUSTED_PROXIES", error.description)
            }
        }

        var limits = HTTPLimits()
        limits.maxRequestLineBytes = reader.integer("MAX_REQUEST_LINE_BYTES", default: limits.maxRequestLineBytes, in: 256...1 << 20)
        limits.maxHeaderBytes = reader.integer("MAX_HEADER_BYTES", default: limits.maxHeaderBytes, in: 1024...1 << 24)
        limits.maxHeaderCount = reader.integer("MAX_HEADER_COUNT", default: limits.maxHeaderCount, in: 8...10_000)
        if reader.string("MAX_BODY_BYTES") != nil {
            limits.maxBodyBytes = UInt64(reader.integer("MAX_BODY_BYTES", default: 0, in: 0...Int.max))
        }
        var server = ServerConfiguration(listenAddress: listen, eventLoops: loops, limits: limits)
        server.headerTimeout = reader.duration("HEADER_TIMEOUT", default: .seconds(10))
        server.bodyIdleTimeout = reader.duration("BODY_IDLE_TIMEOUT", default: .seconds(60))
        server.keepAliveTimeout = reader.duration("KEEPALIVE_TIMEOUT", default: .seconds(75))
        server.writeTimeout = reader.duration("WRITE_TIMEOUT", default: .seconds(60))
        server.maxConnections = reader.integer("MAX_CONNECTIONS", default: 10_000, in: 1...1_000_000)
        if reader.boolean("HTTP2", default: true) {
            var http2 = HTTP2Settings()
            http2.maxConcurrentStreams = reader.integer("HTTP2_MAX_CONCURRENT_STREAMS", default: http2.maxConcurrentStreams, in: 1...10_000)
            http2.streamWindowBytes = reader.integer("HTTP2_STREAM_WINDOW_BYTES", default: http2.streamWindowBytes, in: 1024...(1 << 31) - 1)
            http2.connectionWindowBytes = reader.integer(
                "HTTP2_CONNECTION_WINDOW_BYTES", default: http2.connectionWindowBytes, in: 65_535...(1 << 31) - 1)
            http2.streamBufferBytes = reader.integer("HTTP2_STREAM_BUFFER_BYTES", default: http2.streamBufferBytes, in: 1024...1 << 26)
            http2.connectionBufferBytes = http2.streamBufferBytes * 8
            http2.resetBurst = reader.integer("HTTP2_RESET_BURST", default: http2.resetBurst, in: 1...1_000_000)
            http2.resetsPerSecond = reader.integer("HTTP2_RESETS_PER_SECOND", default: http2.resetsPerSecond, in: 1...1_000_000)
            http2.maxContinuations = reader.integer("HTTP2_MAX_CONTINUATIONS", default: http2.maxContinuations, in: 1...1000)
            http2.maxSettingsEntries = reader.integer("HTTP2_MAX_SETTINGS_ENTRIES", default: http2.maxSettingsEntries, in: 6...1000)
            http2.maxEmptyFrames = reader.integer("HTTP2_MAX_EMPTY_FRAMES", default: http2.maxEmptyFrames, in: 1...1_000_000)
            http2.maxQueuedAcknowledgements = reader.integer("HTTP2_MAX_QUEUED_ACKS", default: http2.maxQueuedAcknowledgements, in: 1...1_000_000)
            server.http2 = http2
        }
        switch (reader.string("TLS_CERT_FILE"), reader.string("TLS_KEY_FILE")) {
        case (nil, nil):
            break
        case (let certificate?, let key?):
            do {
                server.tls = try TLSServerContext(certificateFile: certificate, keyFile: key, offersHTTP2: server.http2 != nil)
            } catch {
                reader.report("TLS_CERT_FILE", error.description)
            }
        case (nil, _):
            reader.report("TLS_CERT_FILE", "is required when TLS_KEY_FILE is set")
        case (_, nil):
            reader.report("TLS_KEY_FILE", "is required when TLS_CERT_FILE is set")
        }
        let passesMethodOverride = reader.boolean("PASS_METHOD_OVERRIDE", default: false)
        let grace = reader.duration("SHUTDOWN_GRACE_PERIOD", default: .seconds(25))
        let accessLog = reader.boolean("ACCESS_LOG", default: true)
        let identity = IdentityConfiguration.read(&reader)
        let native = NativeRoutesConfiguration.read(&reader, settings: upstreamSettings)
        var appSiteAssociation: AppleAppSiteAssociation?
        let appIDs = reader.list("APPLE_APP_IDS")
        if !appIDs.isEmpty {
            for appID in appIDs where !AppleAppSiteAssociation.isValidAppID(appID) {
                reader.report("APPLE_APP_IDS", "each entry must be TEAMID.bundle.id (10-character team id), got \(appID.debugDescription)")
            }
            let authPrefix = identity?.authPathPrefix ?? "/.auth/"
            appSiteAssociation = AppleAppSiteAssociation(
                appIDs: appIDs,
                excludedPaths: [native.prefix + "/*", authPrefix + "*"] + reader.list("APPLE_APP_EXCLUDED_PATHS")
            )
        }
        let push = PushAPIConfiguration.read(&reader)
        let tracing = TracingConfiguration.read(&reader)
        for name in secretFiles.files.keys { reader.attribute(name, to: secretFiles.attributed(name)) }
        if identity == nil, reader.problems.isEmpty {
            // `IdentityConfiguration.read` reports why it has none; this only keeps that promise checked.
            reader.report("ENTRA_TENANT_ID", "Entra sign-in is not configured")
        }
        try reader.finish()
        guard let identity else { throw ConfigurationError(problems: [.init(variable: "ENTRA_TENANT_ID", message: "Entra sign-in is not configured")]) }
        return GatewayConfiguration(
            server: server,
            adminAddress: admin,
            upstream: upstream,
            upstreamSettings: upstreamSettings,
            routesFile: routesFile,
            routes: routes,
            trustedProxies: trusted,
            passesMethodOverride: passesMethodOverride,
            shutdownGracePeriod: grace,
            isAccessLogEnabled: accessLog,
            identity: identity,
            native: native,
            appSiteAssociation: appSiteAssociation,
            push: push,
            secretFiles: secretFiles,
            tracing: tracing
        )
    }
}

/// The identity part of the configuration (Entra, cookie, headers, assertion, rules).
public struct IdentityConfiguration: Sendable {
    public var entra: EntraConfiguration
    /// Overrides the JWKS download (dev identity provider, tests).
    public var jwksFetcher: (any JWKSFetching)?
    public var session: SessionCookieSettings?
    public var tokenCacheSize: Int
    public var profile: IdentityHeaders.Profile
    public var passesAuthorization: Bool
    public var assertionKeys: [P256SigningKey]
    public var assertionAudience: String
    public var publicPathPrefixes: [String]
    public var authPathPrefix: String
    public var allowedOrigins: [String]
    public var credentialExpiryGrace: Duration
    public var accessPolicy: AccessPolicy?
    /// Where `accessPolicy` was read from (`ACCESS_POLICY_FILE`), for `SIGHUP` to read it again.
    public var accessPolicyFile: String? = nil
    public var authorizeURL: String?
    public var authorizeAllowTTL: Duration
    public var authorizeDenyTTL: Duration
    /// The browser sign-in, `nil` when `BROWSER_SIGN_IN` is off.
    public var browserSignIn: BrowserSignInConfiguration?
    /// Groups overage through Microsoft Graph, `nil` when `GROUPS_FROM_GRAPH` is off.
    public var graphGroups: GraphGroupsConfiguration? = nil

    /// Reads the identity settings; problems go to `reader`. `nil` only when problems were reported.
    static func read(_ reader: inout EnvironmentReader) -> IdentityConfiguration? {
        var entra: EntraConfiguration?
        do {
            entra = try EntraConfiguration.fromEnvironment(reader.environment)
        } catch {
            reader.report(error.setting ?? "ENTRA_TENANT_ID", error.reason)
        }
        var session: SessionCookieSettings?
        do {
            session = try SessionCookieSettings.fromEnvironment(reader.environment)
        } catch where entra == nil && error.reason == SessionCookieSettings.undeterminedAudience {
            // Nothing names the deployment because Entra is not configured: reported once, above.
        } catch {
            reader.report(error.setting ?? "SESSION_SECRET", error.reason)
        }
        var profile = IdentityHeaders.Profile.gateway
        if let text = reader.string("IDENTITY_HEADERS") {
            if let parsed = IdentityHeaders.Profile(rawValue: text.lowercased()) {
                profile = parsed
            } else {
                reader.report("IDENTITY_HEADERS", "must be gateway, easyauth or oauth2-proxy, got \(text.debugDescription)")
            }
        }
        var keys = [P256SigningKey]()
        if let text = reader.environment["ASSERTION_KEYS"], !text.isEmpty {
            do {
                keys = try Self.assertionKeys(pem: text)
            } catch {
                reader.report(error.variable, error.message)
            }
        }
        var policy: AccessPolicy?
        if let path = reader.string("ACCESS_POLICY_FILE") {
            do {
                policy = try AccessPolicy.load(path: path)
            } catch {
                reader.report("ACCESS_POLICY_FILE", error.description)
            }
        }
        let authorizeURL = reader.string("AUTHORIZE_URL")
        if let authorizeURL {
            do {
                try URLPolicy.validateOutbound(url: authorizeURL, allowsCleartextOnLoopback: true)
            } catch {
                reader.report("AUTHORIZE_URL", "must be https (http only for a loopback address): \(error.code)")
            }
        }
        var allowTTL = Duration.seconds(60), denyTTL = Duration.seconds(10)
        if let text = reader.string("AUTHORIZE_CACHE_SECONDS") {
            let parts = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 >= 0 }
            let fields = text.split(separator: ",", omittingEmptySubsequences: false).count
            if let allow = parts.first, parts.count == fields, fields <= 2 {
                allowTTL = .seconds(allow)
                denyTTL = .seconds(parts.last ?? allow)
            } else {
                reader.report("AUTHORIZE_CACHE_SECONDS", "must be `allow[,deny]` in whole seconds, got \(text.debugDescription)")
            }
        }
        let grace = reader.string("CREDENTIAL_EXPIRY_GRACE") == "0"
            ? .zero : reader.duration("CREDENTIAL_EXPIRY_GRACE", default: ClockSkewLeeway.defaultValue)
        // A credential is accepted until exp + its leeway: closing its stream any sooner lets the
        // client reopen it at once with the same credential. Tokens and cookies each have theirs.
        if let leeway = entra?.leeway, grace < leeway {
            reader.report(
                "CREDENTIAL_EXPIRY_GRACE",
                "must be at least CLOCK_SKEW_LEEWAY (\(leeway.components.seconds) s), got \(grace.seconds) s: a stream closed sooner could be reopened with the expired token"
            )
        } else if session != nil, grace < SessionCookieSettings.leeway {
            reader.report(
                "CREDENTIAL_EXPIRY_GRACE",
                "must be at least the session cookie's leeway (\(SessionCookieSettings.leeway.components.seconds) s) while SESSION_SECRET is set, got \(grace.seconds) s: a stream closed sooner could be reopened with the expired cookie"
            )
        }
        var prefix = reader.string("AUTH_PATH_PREFIX") ?? "/.auth/"
        if !prefix.hasPrefix("/") { reader.report("AUTH_PATH_PREFIX", "must start with /") }
        if !prefix.hasSuffix("/") { prefix += "/" }
        // Every setting is read (and its problems reported) before a missing Entra configuration
        // ends the reading: `config check` lists them all at once.
        let tokenCacheSize = reader.integer("TOKEN_CACHE_SIZE", default: 10_000, in: 0...10_000_000)
        let passesAuthorization = reader.boolean("PASS_AUTHORIZATION", default: false)
        let assertionAudience = reader.string("ASSERTION_AUDIENCE") ?? "app-native-upstream"
        let publicPathPrefixes = reader.list("PUBLIC_PATHS")
        let allowedOrigins = reader.list("ALLOWED_ORIGINS").map { $0.lowercased() }
        let browserSignIn = BrowserSignInConfiguration.read(&reader, entra: entra)
        let graphGroups = GraphGroupsConfiguration.read(&reader, entra: entra)
        guard let entra else { return nil }
        return IdentityConfiguration(
            entra: entra,
            jwksFetcher: nil,
            session: session,
            tokenCacheSize: tokenCacheSize,
            profile: profile,
            passesAuthorization: passesAuthorization,
            assertionKeys: keys,
            assertionAudience: assertionAudience,
            publicPathPrefixes: publicPathPrefixes,
            authPathPrefix: prefix,
            allowedOrigins: allowedOrigins,
            credentialExpiryGrace: grace,
            accessPolicy: policy,
            accessPolicyFile: policy == nil ? nil : reader.string("ACCESS_POLICY_FILE"),
            authorizeURL: authorizeURL,
            authorizeAllowTTL: allowTTL,
            authorizeDenyTTL: denyTTL,
            browserSignIn: browserSignIn,
            graphGroups: graphGroups
        )
    }


    /// The P-256 private keys of `ASSERTION_KEYS` (PEM blocks; literal `\\n` pairs are newlines).
    ///
    /// - Throws: the problem, naming `ASSERTION_KEYS`, when a block is not such a key or there is none.
    static func assertionKeys(pem text: String) throws(ConfigurationError.Problem) -> [P256SigningKey] {
        let pem = text.replacingOccurrences(of: "\\n", with: "\n")
        var keys = [P256SigningKey]()
        for block in pemBlocks(pem) {
            do {
                keys.append(try P256SigningKey(pkcs8PEM: block))
            } catch {
                throw .init(variable: "ASSERTION_KEYS", message: "each key must be a P-256 private key in PEM (\(error.code))")
            }
        }
        guard !keys.isEmpty else { throw .init(variable: "ASSERTION_KEYS", message: "contains no PEM private key") }
        return keys
    }

    static func pemBlocks(_ text: String) -> [String] {
        var blocks = [String]()
        var current: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("-----BEGIN ") { current = [] }
            current.append(Substring(trimmed))
            if trimmed.hasPrefix("-----END ") {
                blocks.append(current.joined(separator: "\n") + "\n")
                current = []
            }
        }
        return blocks
    }
}

extension PushAPIConfiguration {
    /// Reads the push settings; with PUSH_API_KEYS set, the APNs credentials must be valid too.
    static func read(_ reader: inout EnvironmentReader) -> PushAPIConfiguration {
        let keys = apiKeys(&reader)
        let maxBatch = reader.integer("PUSH_MAX_BATCH", default: defaultMaxBatch, in: 1...maxBatchCeiling)
        let webhook = reader.string("DEAD_TOKEN_WEBHOOK_URL")
        if let webhook {
            do {
                try URLPolicy.validateOutbound(url: webhook, allowsCleartextOnLoopback: true)
            } catch {
                reader.report("DEAD_TOKEN_WEBHOOK_URL", "must be https (http only for a loopback address): \(error.code)")
            }
        }
        if !keys.isEmpty {
            do {
                _ = try APNsConfiguration.fromEnvironment(reader.environment)
            } catch {
                let names = ["APNS_KEY_ID", "APNS_TEAM_ID", "APNS_BUNDLE_ID", "APNS_BASE_URL", "APNS_USE_SANDBOX", "APNS_KEY"]
                let variable = names.first { error.reason.contains($0) } ?? (error.reason.contains("base URL") ? "APNS_BASE_URL" : "APNS_KEY")
                reader.report(variable, error.reason)
            }
        }
        var listen: SocketAddress?
        if let text = reader.string("PUSH_API_LISTEN") {
            do {
                listen = try SocketAddress(parsing: text)
            } catch {
                reader.report("PUSH_API_LISTEN", error.description)
            }
        }
        return PushAPIConfiguration(
            apiKeys: keys, maxBatch: maxBatch, deadTokenWebhookURL: webhook, apnsEnvironment: reader.environment,
            listenAddress: listen)
    }

    /// `PUSH_API_KEYS`: comma-separated, each at least 16 characters; empty when unset.
    static func apiKeys(_ reader: inout EnvironmentReader) -> [Secret<String>] {
        let keys = reader.list("PUSH_API_KEYS").map { Secret($0) }
        if keys.contains(where: { $0.revealed.count < 16 }) {
            reader.report("PUSH_API_KEYS", "each key must be at least 16 characters")
        }
        return keys
    }
}
