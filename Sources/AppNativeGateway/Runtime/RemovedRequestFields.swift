import AppNativeHTTP
import AppNativeIdentity

/// The fields removed from every client request before it is forwarded, from its head and its
/// trailer section, whatever the door: the proxy, the native routes and WebSocket handshakes all
/// forward through `ProxyHandler`, which is built with these patterns only (`Gateway`).
///
/// - every identity name a client could forge (`IdentityHeaders.forgedNames`; the verified
///   identity is added afterwards);
/// - the routing overrides (`RoutingOverrideFields.routingNames`), always;
/// - the method overrides (`RoutingOverrideFields.methodOverrideNames`) unless
///   `PASS_METHOD_OVERRIDE` keeps them for a backend that needs them (in heads only: a trailer
///   section never carries either kind, see `TrailerFields`).
///
/// Matched ASCII-case-insensitively with `_` read as `-` (`FieldNamePatterns`); fields whose name
/// has a `_` are dropped by the forwarding rules anyway.
enum RemovedRequestFields {
    /// The names (and name prefixes ending in `-`) removed.
    static func names(passingMethodOverride: Bool) -> [String] {
        IdentityHeaders.forgedNames + RoutingOverrideFields.removedNames(keepingMethodOverride: passingMethodOverride)
    }

    /// `names` as the patterns `ProxyHandler` removes.
    static func patterns(passingMethodOverride: Bool) -> FieldNamePatterns {
        FieldNamePatterns(names(passingMethodOverride: passingMethodOverride))
    }
}
