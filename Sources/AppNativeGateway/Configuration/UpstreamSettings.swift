public import AppNativeProxy

/// What every upstream URL shares, whichever setting names it (`UPSTREAM_URL`, a route's
/// `upstream`, a native route's own URL): the CA bundle, the timeouts, the pool size, how often
/// its host is looked up and how long a failing address is skipped, and the `Host` it gets.
/// A route may change its timeouts and `Host` (`RouteSet.build`).
public struct UpstreamSettings: Sendable {
    public var caFile: String?
    public var connectTimeout: Duration = .seconds(5)
    public var responseTimeout: Duration = .seconds(60)
    public var idleTimeout: Duration = .seconds(60)
    public var maxIdleConnectionsPerLoop = 64
    public var dnsRefresh: Duration = .seconds(30)
    public var ejection: Duration = .seconds(10)
    public var hostHeader = UpstreamHostHeader.client

    public init() {}

    /// `url` made ready to dial with these settings (its host not looked up yet).
    public func configuration(url: String) throws(UpstreamConfiguration.InvalidURL) -> UpstreamConfiguration {
        var upstream = try UpstreamConfiguration(url: url, caFile: caFile)
        upstream.connectTimeout = connectTimeout
        upstream.responseTimeout = responseTimeout
        upstream.idleTimeout = idleTimeout
        upstream.maxIdleConnectionsPerLoop = maxIdleConnectionsPerLoop
        upstream.hostHeaderMode = hostHeader
        upstream.resolve(every: dnsRefresh, ejectingFor: ejection)
        return upstream
    }
}
