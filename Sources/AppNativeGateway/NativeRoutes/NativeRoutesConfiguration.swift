public import AppNativeProxy
public import AppNativeRoutes

/// Where the native routes live, where their events go, and their limits.
public struct NativeRoutesConfiguration: Sendable {
    /// Off: the ten paths are proxied like any other.
    public var isEnabled = true
    /// Mount prefix of the routes (`NATIVE_PREFIX`, default `/api`).
    public var prefix = "/api"
    /// Routes whose events go to their own URL instead of the same path on `UPSTREAM_URL`.
    public var routeUpstreams: [NativeRoute: RouteUpstream] = [:]
    /// Largest accepted document (contract/routes.md §2.8: exactly this many bytes is accepted);
    /// the default is a Swift backend's (`NativeRouteLimits`).
    public var documentMaxBytes = NativeRouteLimits.defaultMaxDocumentBytes
    /// Largest accepted JSON body; larger ones get 413 before any decoding.
    public var jsonMaxBytes = NativeRouteLimits.defaultMaxJSONBodyBytes
    /// Largest upstream answer a feed or result may have (it is validated in memory).
    public var upstreamAnswerMaxBytes = 8 << 20

    public init() {}

    /// A per-route URL: its upstream and the exact path requests are sent to.
    public struct RouteUpstream: Sendable {
        public var upstream: UpstreamConfiguration
        public var path: String
    }

    static func read(_ reader: inout EnvironmentReader, settings: UpstreamSettings) -> NativeRoutesConfiguration {
        var configuration = NativeRoutesConfiguration()
        configuration.isEnabled = reader.boolean("NATIVE_ROUTES", default: true)
        if let prefix = reader.string("NATIVE_PREFIX") {
            var trimmed = prefix
            while trimmed.hasSuffix("/") { trimmed.removeLast() }
            if !prefix.hasPrefix("/") || prefix.contains("?") || prefix.contains("#") {
                reader.report("NATIVE_PREFIX", "must be a path starting with /, got \(prefix.debugDescription)")
            } else {
                configuration.prefix = trimmed
            }
        }
        for route in NativeRoute.allCases {
            guard let url = reader.string(route.upstreamURLSetting) else { continue }
            do {
                var upstream = try settings.configuration(url: url)
                let path = upstream.pathPrefix.isEmpty ? "/" : upstream.pathPrefix
                upstream.pathPrefix = ""
                configuration.routeUpstreams[route] = RouteUpstream(upstream: upstream, path: path)
            } catch {
                reader.report(route.upstreamURLSetting, error.description)
            }
        }
        configuration.documentMaxBytes = reader.integer("DOCUMENT_MAX_BYTES", default: configuration.documentMaxBytes, in: 1...(1 << 40))
        configuration.jsonMaxBytes = reader.integer("NATIVE_MAX_JSON_BYTES", default: configuration.jsonMaxBytes, in: 1024...(64 << 20))
        return configuration
    }
}

import Foundation
