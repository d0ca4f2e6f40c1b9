import AppNativeHTTP
public import AppNativeProxy
public import AppNativeServer
import Foundation

/// Everything `serve` needs, read from the environment with every problem reported at once.
public struct GatewayConfiguration: Sendable {
    public var server: ServerConfiguration
    public var adminAddress: SocketAddress
    public var upstream: UpstreamConfiguration
    public var trustedProxies: TrustedProxies
    public var shutdownGracePeriod: Duration
    public var isAccessLogEnabled: Bool

    /// The settings `serve` reads, in the order of the reference table.
    public static let settings: [Setting] = [
        Setting("LISTEN", default: "0.0.0.0:8080", section: "Listeners", "Address of the gateway (`host:port`, `[v6]:port`)."),
        Setting("ADMIN_LISTEN", default: "127.0.0.1:9090", section: "Listeners", "Admin listener: `/healthz`, `/readyz`, `/metrics`. Keep it internal."),
        Setting("EVENT_LOOPS", default: "number of cores", section: "Listeners", "Event loops (threads), each with its own SO_REUSEPORT listener."),
        Setting("UPSTREAM_URL", section: "Upstream", "Required. `http(s)://host[:port][/prefix]` of the backend; https is verified (TLS 1.2+)."),
        Setting("TLS_CERT_FILE", section: "Listeners", "PEM certificate chain: terminate TLS (1.2+) on LISTEN. Reloaded on SIGHUP."),
        Setting("TLS_KEY_FILE", section: "Listeners", "PEM private key matching TLS_CERT_FILE. Reloaded on SIGHUP."),
        Setting("UPSTREAM_CA_FILE", section: "Upstream", "PEM CA bundle to verify an https upstream (default: the system store)."),
        Setting("TRUSTED_PROXIES", section: "Upstream", "CIDR list of proxies whose `X-Forwarded-*`/`Forwarded` are extended; from others they are replaced."),
        Setting("UPSTREAM_CONNECT_TIMEOUT", default: "5", section: "Timeouts", "Seconds to establish an upstream connection (502 after)."),
        Setting("UPSTREAM_RESPONSE_TIMEOUT", default: "60", section: "Timeouts", "Seconds from request sent to response head (504 after)."),
        Setting("UPSTREAM_IDLE_TIMEOUT", default: "60", section: "Timeouts", "Seconds an idle pooled upstream connection is kept."),
        Setting("HEADER_TIMEOUT", default: "10", section: "Timeouts", "Seconds to receive a request head (408 after)."),
        Setting("BODY_IDLE_TIMEOUT", default: "60", section: "Timeouts", "Longest pause inside a request body (408 after)."),
        Setting("KEEPALIVE_TIMEOUT", default: "75", section: "Timeouts", "Seconds an idle client connection is kept."),
        Setting("WRITE_TIMEOUT", default: "60", section: "Timeouts", "Seconds queued response bytes may wait for a client that does not read."),
        Setting("SHUTDOWN_GRACE_PERIOD", default: "25", section: "Timeouts", "Seconds in-flight requests get after SIGTERM."),
        Setting("MAX_CONNECTIONS", default: "10000", section: "Limits", "Client connections across all loops; more are closed at once."),
        Setting("MAX_REQUEST_LINE_BYTES", default: "8192", section: "Limits", "Longer request lines get 414."),
        Setting("MAX_HEADER_BYTES", default: "65536", section: "Limits", "Larger header sections get 431."),
        Setting("MAX_HEADER_COUNT", default: "100", section: "Limits", "More header fields get 431."),
        Setting("MAX_BODY_BYTES", default: "unlimited", section: "Limits", "Larger request bodies get 413 as soon as the size is known."),
        Setting("UPSTREAM_MAX_IDLE", default: "64", section: "Limits", "Idle upstream connections kept per event loop."),
        Setting("ACCESS_LOG", default: "true", section: "Operations", "One JSON line per request on standard output."),
    ]

    public static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> GatewayConfiguration {
        var reader = EnvironmentReader(environment)
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

        var upstream = UpstreamConfiguration(address: SocketAddress(host: "127.0.0.1", port: 1, family: .inet4), hostHeader: "upstream")
        if let url = reader.string("UPSTREAM_URL") {
            do {
                upstream = try UpstreamConfiguration(url: url, caFile: reader.string("UPSTREAM_CA_FILE"))
            } catch {
                reader.report("UPSTREAM_URL", error.description)
            }
        } else {
            reader.report("UPSTREAM_URL", "is required (the backend behind the gateway, e.g. http://127.0.0.1:8000)")
        }
        upstream.connectTimeout = reader.duration("UPSTREAM_CONNECT_TIMEOUT", default: .seconds(5))
        upstream.responseTimeout = reader.duration("UPSTREAM_RESPONSE_TIMEOUT", default: .seconds(60))
        upstream.idleTimeout = reader.duration("UPSTREAM_IDLE_TIMEOUT", default: .seconds(60))
        upstream.maxIdleConnectionsPerLoop = reader.integer("UPSTREAM_MAX_IDLE", default: 64, in: 0...10_000)

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
        switch (reader.string("TLS_CERT_FILE"), reader.string("TLS_KEY_FILE")) {
        case (nil, nil):
            break
        case (let certificate?, let key?):
            do {
                server.tls = try TLSServerContext(certificateFile: certificate, keyFile: key)
            } catch {
                reader.report("TLS_CERT_FILE", error.description)
            }
        case (nil, _):
            reader.report("TLS_CERT_FILE", "is required when TLS_KEY_FILE is set")
        case (_, nil):
            reader.report("TLS_KEY_FILE", "is required when TLS_CERT_FILE is set")
        }
        let grace = reader.duration("SHUTDOWN_GRACE_PERIOD", default: .seconds(25))
        let accessLog = reader.boolean("ACCESS_LOG", default: true)
        try reader.finish()
        return GatewayConfiguration(
            server: server,
            adminAddress: admin,
            upstream: upstream,
            trustedProxies: trusted,
            shutdownGracePeriod: grace,
            isAccessLogEnabled: accessLog
        )
    }
}
