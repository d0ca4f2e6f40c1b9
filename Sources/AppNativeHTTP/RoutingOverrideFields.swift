/// Request fields that make a server route or handle a request differently from its request line,
/// after a proxy's path and method rules ran on the request line:
///
/// - routing overrides, `X-Original-URL` and `X-Rewrite-URL`: IIS URL Rewrite setups and the
///   frameworks that read them (Symfony and Zend Framework did, CVE-2018-14773) take them as the
///   request's path, so `GET /public/x` with `X-Original-URL: /admin` reaches `/admin`;
/// - method overrides, `X-HTTP-Method-Override`, `X-HTTP-Method` and `X-Method-Override`:
///   Express's `method-override`, Rack's `MethodOverride`, Symfony, OData services and others take
///   them as the method, so a `POST` an access rule allows is handled as a `DELETE`.
///
/// A gateway removes them from client requests (`FieldNamePatterns` matching: any case, `_` read as
/// `-`, a name extended with `-…` included). A backend that needs method overrides (clients that
/// cannot send `PATCH` or `DELETE`) can keep those; a trailer section never carries either kind
/// (`patterns`), as RFC 9110 §6.5.1 keeps request modifiers out of trailers.
///
/// `X-Original-URI`, which a front proxy in forward-auth mode sends to its authentication
/// endpoint, is a different name and none of these.
public enum RoutingOverrideFields: Sendable {
    /// Fields that re-route a request: always removed.
    public static let routingNames = ["X-Original-URL", "X-Rewrite-URL"]

    /// Fields that change a request's method: removed unless the backend needs them.
    public static let methodOverrideNames = ["X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"]

    /// The names removed from a client request's head.
    /// - Parameter keepingMethodOverride: keep `methodOverrideNames`.
    public static func removedNames(keepingMethodOverride: Bool) -> [String] {
        keepingMethodOverride ? routingNames : routingNames + methodOverrideNames
    }

    /// Every routing and method-override name, for trailer sections (never forwarded there).
    public static let patterns = FieldNamePatterns(routingNames + methodOverrideNames)
}
