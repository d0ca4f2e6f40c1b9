/// The path a request's rules decide on, in every reading an upstream may give it.
///
/// Servlet containers (Tomcat, Jetty, Spring) drop each segment's `;` parameters before they
/// route (`/admin;x/users` is `/admin/users` to them) while most other servers keep them as part
/// of the segment. A rule therefore holds for a request only if it holds for both readings:
/// a path is public only when both readings are public, an access-policy rule must allow both,
/// and a native route is matched on the reading without parameters, so a `;` cannot carry a
/// native request past its validation. `RequestPath` has already refused the spellings that no
/// reading makes safe (dot segments, with or without parameters).
struct DecisionPath: Sendable, Equatable {
    /// The path as the client sent it, without the query.
    let path: String
    /// `path` without the `;` parameters of its segments; equal to `path` when it has none.
    let routed: String

    init(_ path: String) {
        self.path = path
        routed = Self.removingParameters(path)
    }

    /// Whether `rule` holds for every reading of the path (no list is built: it runs per request).
    func everyReading(_ rule: (String) -> Bool) -> Bool {
        rule(path) && (routed == path || rule(routed))
    }

    /// `path` with each segment cut at its first `;` (RFC 3986 §3.3 path parameters).
    static func removingParameters(_ path: String) -> String {
        guard path.utf8.contains(UInt8(ascii: ";")) else { return path }
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { segment in segment.firstIndex(of: ";").map { segment[..<$0] } ?? segment }
            .joined(separator: "/")
    }
}
