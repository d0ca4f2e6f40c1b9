import AppNativeAPNs
public import AppNativeCore
public import AppNativeAuth
import AppNativeCrypto
import AppNativeIdentity
import AppNativeJSON
import AppNativeProxy
import AppNativeSignIn
public import AppNativeServer
internal import CAppNativeLinux
import Foundation
import Glibc

// Unsafe (signal set-up): the signal list is borrowed with its count for the C call; poll(2) is
// given one local pollfd.

/// The running gateway: the public server, the admin server, and their lifecycle.
public final class Gateway: Sendable {
    public let configuration: GatewayConfiguration
    private let server: HTTPServer
    private let admin: HTTPServer
    /// The push API's own listener (`PUSH_API_LISTEN`), if configured.
    private let pushServer: HTTPServer?
    private let logger: Logger
    private let metrics: MetricsRegistry

    public let verifier: EntraTokenVerifier
    /// The browser sign-in when `BROWSER_SIGN_IN` is on.
    private let signIn: BrowserSignIn?
    /// The routes in force (`ROUTES_FILE`, or `UPSTREAM_URL` alone; `reloadFiles`).
    private let routes: RoutesSource
    private let certificateExpiry: Gauge?
    /// Sends sampled spans to the OTLP collector, when an endpoint is configured.
    private let spanExporter: OTLPExporter?
    /// What `SIGHUP` reads again (`reloadFiles`): the TLS certificate, the access policy, the
    /// routes, the secrets read from files.
    private let reloadables: [any FileReloading]
    /// `appnative_config_reloads_total{file,outcome}` by file setting, then outcome.
    private let reloadCounters: [String: [String: Counter]]

    public init(configuration: GatewayConfiguration, metrics: MetricsRegistry = .shared, logger: Logger = Logger()) throws {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        metrics.gauge(MetricCatalogue.buildInfo, labels: ["version": GatewayVersion.current]).set(1)
        metrics.gauge(MetricCatalogue.httpConnectionsLimit).set(configuration.server.maxConnections)
        certificateExpiry = configuration.server.tls.map { _ in metrics.gauge(MetricCatalogue.tlsCertificateExpiry) }
        let identity = configuration.identity
        let fetcher = try identity.jwksFetcher ?? HTTPJWKSFetcher(url: identity.entra.jwksURL)
        let verifier = EntraTokenVerifier(
            configuration: identity.entra,
            fetcher: fetcher,
            tokenCacheCapacity: identity.tokenCacheSize,
            logger: logger,
            metrics: metrics
        )
        self.verifier = verifier
        let cookies = identity.session.map { SessionCookieCodec(settings: $0, tenantID: identity.entra.tenantID) }
        if let session = identity.session, session.acceptsReferenceCookies {
            logger.warning(
                "SESSION_ACCEPT_REFERENCE_COOKIES is on: session cookies that name no deployment (the Python reference's) are accepted; turn it off when the migration is done (docs/migration.md)",
                ["session.audience": session.audience])
        }
        var assertionKeys = identity.assertionKeys
        if assertionKeys.isEmpty {
            logger.warning("ASSERTION_KEYS is not set: signing identity assertions with an ephemeral key (replicas will not agree)")
            assertionKeys = [try P256SigningKey.generate()]
        }
        let accessPolicy = identity.accessPolicy.map { policy in
            AccessPolicySource(path: identity.accessPolicyFile ?? "", policy: policy)
        }
        let routes = RoutesSource(
            path: configuration.routesFile, routes: configuration.routes, catchAll: configuration.upstream,
            settings: configuration.upstreamSettings)
        self.routes = routes
        let assertions = IdentityAssertionSigner(keys: assertionKeys, audience: identity.assertionAudience)
        var settings = IdentitySettings(
            authenticator: RequestAuthenticator(verifier: verifier, cookies: cookies),
            assertions: assertions,
            profile: identity.profile,
            publicPathPrefixes: identity.publicPathPrefixes,
            authPathPrefix: identity.authPathPrefix,
            allowedOrigins: identity.allowedOrigins,
            passesAuthorization: identity.passesAuthorization,
            credentialExpiryGrace: identity.credentialExpiryGrace,
            accessPolicy: accessPolicy,
            authorizationHook: identity.authorizeURL.map {
                AuthorizationHook(url: $0, allowTTL: identity.authorizeAllowTTL, denyTTL: identity.authorizeDenyTTL, metrics: metrics,
                                  logger: logger)
            }
        )
        let graphGroups = identity.graphGroups.map { GraphGroupsSource(configuration: $0, metrics: metrics, logger: logger) }
        if let graphGroups { settings.groupsSource = graphGroups }
        var signIn: BrowserSignIn?
        if let signInConfiguration = identity.browserSignIn {
            signIn = try BrowserSignIn(
                configuration: signInConfiguration, authPathPrefix: identity.authPathPrefix, tenantID: identity.entra.tenantID,
                leeway: identity.entra.leeway, metrics: metrics, logger: logger)
        }
        self.signIn = signIn
        let secretFiles = IdentitySecretFiles(
            configuration, cookies: cookies, assertions: assertions, signIn: signIn, graphGroups: graphGroups)
        settings.sessionCookies = secretFiles.sessionCookies?.current
        settings.assertionSigners = secretFiles.assertionSigners?.current
        let identityMetrics = IdentityMetrics(registry: metrics)
        let accessLog = AccessLog(enabled: configuration.isAccessLogEnabled, metrics: metrics)
        let spanExporter = configuration.tracing.export.map { OTLPExporter(export: $0, metrics: metrics, logger: logger) }
        self.spanExporter = spanExporter
        let tracing = configuration.tracing.exchangeTracing(recorder: spanExporter)
        let nativeMetrics = NativeRouteMetrics(registry: metrics)
        let appSiteAssociation = configuration.appSiteAssociation?.document
        let openAPIDocument = JSONSerializer.serialize(
            OpenAPIDocument.document(
                authPrefix: identity.authPathPrefix,
                nativePrefix: configuration.native.prefix,
                nativeRoutesEnabled: configuration.native.isEnabled,
                servesAppSiteAssociation: appSiteAssociation != nil,
                version: GatewayVersion.current
            ),
            sortingKeys: false
        )
        let removedFields = RemovedRequestFields.patterns(passingMethodOverride: configuration.passesMethodOverride)
        server = try HTTPServer(configuration: configuration.server, metrics: metrics, logger: logger) { loop in
            let proxy = ProxyHandler(
                loop: loop,
                upstream: nil,
                trustedProxies: configuration.trustedProxies,
                removingFields: removedFields,
                // The sign-in's attempt cookies (on https `Path=/`, so sent with every request
                // during an attempt) hold its nonce and PKCE verifier: never the upstream's.
                removingCookiesStartingWith: signIn == nil
                    ? [] : [SignInStateCookie.hostPrefix + SignInStateCookie.namePrefix, SignInStateCookie.namePrefix],
                accessLog: accessLog,
                tracing: tracing,
                logger: logger,
                metrics: metrics
            )
            let native = NativeRouter(
                loop: loop, configuration: configuration.native, metrics: nativeMetrics, registry: metrics, logger: logger
            )
            var signInEndpoints: BrowserSignInEndpoints?
            if let signIn, let cookies {
                signInEndpoints = BrowserSignInEndpoints(
                    loop: loop, signIn: signIn, cookies: cookies, accessPolicy: accessPolicy,
                    trustedProxies: configuration.trustedProxies, authPathPrefix: identity.authPathPrefix)
            }
            return GatewayHandler(
                loop: loop,
                proxy: proxy,
                native: native,
                routes: routes,
                registry: metrics,
                appSiteAssociation: appSiteAssociation,
                openAPIDocument: openAPIDocument,
                settings: settings,
                signIn: signInEndpoints,
                metrics: identityMetrics,
                logger: logger
            )
        }
        var adminConfiguration = ServerConfiguration(listenAddress: configuration.adminAddress, eventLoops: 1)
        adminConfiguration.maxConnections = 256
        var push: PushAPI?
        var pushReloadables: [any FileReloading] = []
        if configuration.push.isEnabled {
            let sender = APNsSender(environment: configuration.push.apnsEnvironment, logger: logger, metrics: metrics)
            let api = PushAPI(configuration: configuration.push, sender: sender, logger: logger, metrics: metrics)
            push = api
            pushReloadables = Self.pushReloadables(api, sender, configuration.secretFiles)
        }
        let fileReloadables: [(any FileReloading)?] = [configuration.server.tls, accessPolicy, routes.path == nil ? nil : routes]
        reloadables = fileReloadables.compactMap { $0 } + secretFiles.reloadables + pushReloadables
        var reloadCounters: [String: [String: Counter]] = [:]
        for file in reloadables.flatMap(\.fileVariables) {
            reloadCounters[file] = Dictionary(uniqueKeysWithValues: ["ok", "failed"].map {
                ($0, metrics.counter(MetricCatalogue.configReloads, labels: ["file": file, "outcome": $0]))
            })
        }
        self.reloadCounters = reloadCounters
        let ownListener = configuration.push.listenAddress
        admin = try HTTPServer(configuration: adminConfiguration, metrics: MetricsRegistry(), logger: logger) { [push] loop in
            // Ready once the tenant's keys are loaded: before that every token would get 503.
            // …and once every route's upstream host resolved (before that its requests would get 502).
            AdminHandler(
                loop: loop, metrics: metrics, isReady: { verifier.keys.isLoaded && routes.isResolved },
                push: ownListener == nil ? push : nil)
        }
        if let push, let ownListener {
            var pushConfiguration = ServerConfiguration(listenAddress: ownListener, eventLoops: 1)
            pushConfiguration.maxConnections = 1024
            pushServer = try HTTPServer(configuration: pushConfiguration, metrics: MetricsRegistry(), logger: logger) { loop in
                AdminHandler(loop: loop, metrics: metrics, isReady: { true }, push: push, servesAdminRoutes: false)
            }
        } else {
            pushServer = nil
        }
    }

    public var listenAddress: SocketAddress { server.boundAddress }
    public var adminAddress: SocketAddress { admin.boundAddress }
    /// The push API's own listener, when `PUSH_API_LISTEN` is set.
    public var pushAddress: SocketAddress? { pushServer?.boundAddress }

    /// Starts the listeners and the key refresher, and returns once the first key download has
    /// ended (keys loaded, or failed within the reload timeout): a client that sends a token as
    /// soon as the ready line appears must not get 503 only because that download was under way.
    /// Readiness (`/readyz`) follows the keys from then on; the refresher retries until they load.
    public func start() async {
        publishCertificateExpiry()
        // Each upstream URL's host is looked up once here, then by its resolver thread; a name
        // that does not resolve yet leaves the gateway running but not ready.
        routes.start(metrics: metrics, logger: logger)
        for route in configuration.native.routeUpstreams.values {
            route.upstream.addresses.start(metrics: metrics, logger: logger)
        }
        spanExporter?.start()
        server.start()
        admin.start()
        pushServer?.start()
        let keys = verifier.keys
        keys.startRefreshing()
        signIn?.start()
        await keys.waitForReloadInFlight()
        await signIn?.waitUntilReady(timeout: .seconds(10))
    }

    /// `SIGHUP`: reads every file that can change at run time again (`TLS_CERT_FILE` and
    /// `TLS_KEY_FILE`, `ACCESS_POLICY_FILE`, `ROUTES_FILE`, the secrets' `…_FILE` settings) and
    /// swaps each value in whole for new requests (requests in flight finish on the one they
    /// started with). A file that cannot be read or checked keeps its value in force: the
    /// problem is logged (never the content) and counted
    /// (`appnative_config_reloads_total{file,outcome}`), and the gateway keeps serving.
    public func reloadFiles() {
        if reloadables.isEmpty { logger.info("SIGHUP received; no file to reload") }
        for reloadable in reloadables {
            do {
                try reloadable.reloadFiles()
                for file in reloadable.fileVariables { reloadCounters[file]?["ok"]?.increment() }
                logger.info("\(reloadable.name) reloaded", ["files": reloadable.fileVariables.joined(separator: ",")])
            } catch {
                reloadCounters[error.variable]?["failed"]?.increment()
                logger.error(
                    "\(reloadable.name) reload failed; keeping the one in force", ["setting": error.variable, "error": error.reason])
            }
        }
        publishCertificateExpiry()
    }

    /// The expiry of the certificate in use; `reloadFiles` publishes it after the TLS reload,
    /// so the metric follows a renewed certificate.
    private func publishCertificateExpiry() {
        if let notAfter = configuration.server.tls?.certificateNotAfter { certificateExpiry?.set(notAfter) }
    }

    /// Graceful stop: both servers drain until the grace period, then close.
    public func shutdown() {
        server.shutdown(gracePeriod: configuration.shutdownGracePeriod)
        admin.shutdown(gracePeriod: .milliseconds(100))
        pushServer?.shutdown(gracePeriod: configuration.shutdownGracePeriod)
        // The spans of the drained requests go out with the last export, without holding the exit.
        spanExporter?.stop()
    }
}

/// Signals for the process: blocked in every thread (so loops never see them) and awaited on the
/// main thread with a signalfd.
public enum ProcessSignals: Sendable {
    public static let handled: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// Blocks the handled signals (call before starting any thread) and ignores SIGPIPE.
    public static func blockHandledSignals() {
        signal(SIGPIPE, SIG_IGN)
        _ = unsafe handled.withUnsafeBufferPointer { unsafe appnative_block_signals($0.baseAddress, Int32($0.count)) }
    }

    /// Waits for the next handled signal and returns it.
    public static func wait() -> Int32 {
        let fd = unsafe handled.withUnsafeBufferPointer { unsafe appnative_signalfd_create($0.baseAddress, Int32($0.count)) }
        defer { close(fd) }
        var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            _ = unsafe Glibc.poll(&poll, 1, -1)
            let signal = appnative_signalfd_read(fd)
            if signal > 0 { return signal }
        }
    }
}
