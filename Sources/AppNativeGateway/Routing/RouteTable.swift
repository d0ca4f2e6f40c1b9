/// The choice of a route for a request (`ROUTES_FILE`): routes naming the request's host come
/// before routes for every host, then the longest path prefix wins; among equals, the first in
/// the file. No route: `nil` (answered 404).
///
/// A value built once per loaded file and shared read-only: a reload swaps the whole table.
struct RouteTable: Sendable {
    let routes: [RouteDefinition]
    /// Route indices in the order they are tried: host routes first, then by path length.
    private let order: [Int]

    init(_ routes: [RouteDefinition]) {
        self.routes = routes
        order = routes.indices.sorted { left, right in
            let a = routes[left]
            let b = routes[right]
            if (a.host != nil) != (b.host != nil) { return a.host != nil }
            if a.path.length != b.path.length { return a.path.length > b.path.length }
            return left < right
        }
    }

    /// The route for a request to `host` (its `Host` field, any port ignored) and `path` (a
    /// checked path, without the query).
    func route(host: String?, path: String) -> Int? {
        let host = host.map(Self.normalizedHost)
        for index in order {
            let route = routes[index]
            if let routeHost = route.host, routeHost != host { continue }
            if route.path.matches(path) { return index }
        }
        return nil
    }

    /// `target` (path and query) as the route's upstream gets it (`RouteDefinition.upstreamTarget`).
    func upstreamTarget(_ target: String, route index: Int) -> String {
        routes[index].upstreamTarget(target)
    }

    /// `host` lower-cased without its port: `Example.COM:8443` → `example.com`, `[::1]:80` → `[::1]`.
    static func normalizedHost(_ host: String) -> String {
        var host = Substring(host)
        if host.hasPrefix("[") {
            if let close = host.firstIndex(of: "]") { host = host[...close] }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return host.lowercased()
    }
}
