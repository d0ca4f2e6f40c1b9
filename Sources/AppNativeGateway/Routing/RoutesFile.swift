import AppNativeIdentity
import AppNativeJSON
import AppNativeProxy
import Foundation

/// Reads `ROUTES_FILE`: `{"routes": [ … ]}`, each route an object with
///
/// | member | meaning |
/// |---|---|
/// | `name` | for logs, metrics and problems (default `routes[<index>]`); unique |
/// | `host` | exact host, case-insensitive, port ignored (default: every host) |
/// | `path` | client-facing prefix on segment boundaries (default `/`) |
/// | `upstream` | a URL, or a list of URLs used in turn (required) |
/// | `public_paths` | client-facing prefixes served without credentials |
/// | `policy` | an access policy (`{"rules": […]}`, as `ACCESS_POLICY_FILE`), client-facing paths |
/// | `strip_path` | the upstream gets the path without `path` (default false) |
/// | `host_header` | `client` (default) or `upstream` |
/// | `connect_timeout`, `response_timeout` | seconds, for this route's upstreams |
/// | `native_routes` | whether the app's native routes are served on this route |
/// | `identity_headers` | `gateway`, `easyauth` or `oauth2-proxy` for this route's backend |
///
/// Every problem of the file is reported at once, each naming the route and the member; unknown
/// members are problems too (a misspelt `strip_paths` must not silently do nothing).
enum RoutesFile {
    /// One problem: where (`routes[1] "billing".upstream`) and what.
    struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        let location: String
        let message: String
        var description: String { "\(location): \(message)" }
    }

    /// Every problem of a file that cannot be used.
    struct Invalid: Error, Sendable, CustomStringConvertible {
        let problems: [Problem]
        var description: String { problems.map(\.description).joined(separator: "; ") }
    }

    /// Reads and checks the file at `path`.
    static func load(path: String) -> Result<[RouteDefinition], Invalid> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(Invalid(problems: [Problem(location: "ROUTES_FILE", message: "cannot read \(path)")]))
        }
        return parse(Array(data), source: path)
    }

    /// Checks a document's bytes; `source` names the file in problems about the whole document.
    static func parse(_ bytes: [UInt8], source: String) -> Result<[RouteDefinition], Invalid> {
        let root: JSONValue
        do {
            root = try JSONParser().parse(bytes)
        } catch {
            return .failure(Invalid(problems: [Problem(location: source, message: "not valid JSON (\(error.code))")]))
        }
        guard let object = root.objectValue else {
            return .failure(Invalid(problems: [Problem(location: source, message: "must be an object {\"routes\": […]}")]))
        }
        var problems = [Problem]()
        for (key, _) in object where key != "routes" {
            problems.append(Problem(location: source, message: "unknown member \"\(key)\""))
        }
        guard let entries = object["routes"]?.arrayValue else {
            return .failure(Invalid(problems: problems + [Problem(location: source, message: "needs a \"routes\" array")]))
        }
        if entries.isEmpty { problems.append(Problem(location: "routes", message: "must list at least one route")) }
        var routes = [RouteDefinition]()
        var names = Set<String>()
        for (index, entry) in entries.enumerated() {
            var reader = RouteReader(index: index, entry: entry)
            if let route = reader.read() {
                if !names.insert(route.name).inserted {
                    reader.problems.append(Problem(location: reader.location, message: "name \"\(route.name)\" is used by an earlier route"))
                }
                routes.append(route)
            }
            problems += reader.problems
        }
        problems += duplicates(routes)
        return problems.isEmpty ? .success(routes) : .failure(Invalid(problems: problems))
    }

    /// Two routes for the same host and path: the second could never be chosen.
    private static func duplicates(_ routes: [RouteDefinition]) -> [Problem] {
        var seen = [String: String]()
        var problems = [Problem]()
        for route in routes {
            let key = (route.host ?? "*") + " " + route.path.normalized
            if let earlier = seen[key] {
                problems.append(Problem(
                    location: "routes \"\(route.name)\"", message: "same host and path as \"\(earlier)\": it would never be chosen"))
            } else {
                seen[key] = route.name
            }
        }
        return problems
    }
}

/// Reads one route, collecting every problem with its member's location.
private struct RouteReader {
    let index: Int
    let entry: JSONValue
    var problems: [RoutesFile.Problem] = []
    private(set) var location: String

    static let members: Set<String> = [
        "name", "host", "path", "upstream", "public_paths", "policy", "strip_path", "host_header", "connect_timeout",
        "response_timeout", "native_routes", "identity_headers",
    ]

    init(index: Int, entry: JSONValue) {
        self.index = index
        self.entry = entry
        location = "routes[\(index)]"
    }

    private mutating func problem(_ member: String?, _ message: String) {
        problems.append(RoutesFile.Problem(location: member.map { "\(location).\($0)" } ?? location, message: message))
    }

    mutating func read() -> RouteDefinition? {
        guard let object = entry.objectValue else {
            problem(nil, "must be an object")
            return nil
        }
        var name = "routes[\(index)]"
        if let value = object["name"] {
            if let text = value.stringValue, Self.isName(text) {
                name = text
                location = "routes[\(index)] \"\(text)\""
            } else {
                problem("name", "must be 1–64 characters of letters, digits, `-`, `_` and `.`")
            }
        }
        for (key, _) in object where !Self.members.contains(key) { problem(nil, "unknown member \"\(key)\"") }
        var route = RouteDefinition(name: name, host: nil, path: PathPrefix("/"), upstreams: [])
        if let value = object["host"] {
            if let text = value.stringValue, Self.isHost(text) {
                route.host = RouteTable.normalizedHost(text)
            } else {
                problem("host", "must be a host name or IP literal (a port is ignored when matching; leave it out)")
            }
        }
        if let value = object["path"] {
            if let text = value.stringValue, Self.isPathPrefix(text) {
                route.path = PathPrefix(text)
            } else {
                problem("path", "must be a path starting with / (no query, no dot segments, no //)")
            }
        }
        route.upstreams = readUpstreams(object["upstream"])
        if let value = object["public_paths"] {
            if let list = value.arrayValue, let texts = Self.strings(list), texts.allSatisfy(Self.isPathPrefix) {
                route.publicPaths = texts.map(PathPrefix.init)
            } else {
                problem("public_paths", "must be an array of paths starting with /")
            }
        }
        if let value = object["policy"] {
            do {
                route.policy = try AccessPolicy.parse(value, source: "\(location).policy")
            } catch {
                problem("policy", error.description)
            }
        }
        if let value = object["strip_path"] {
            if case .bool(let flag) = value { route.stripsPath = flag } else { problem("strip_path", "must be true or false") }
        }
        if let value = object["host_header"] {
            if let mode = value.stringValue.flatMap(UpstreamHostHeader.init(rawValue:)) {
                route.hostHeader = mode
            } else {
                problem("host_header", "must be \"client\" or \"upstream\"")
            }
        }
        route.connectTimeout = readSeconds(object["connect_timeout"], "connect_timeout")
        route.responseTimeout = readSeconds(object["response_timeout"], "response_timeout")
        if let value = object["native_routes"] {
            if case .bool(let flag) = value { route.servesNativeRoutes = flag } else { problem("native_routes", "must be true or false") }
        }
        if let value = object["identity_headers"] {
            if let profile = value.stringValue.flatMap(IdentityHeaders.Profile.init(rawValue:)) {
                route.identityProfile = profile
            } else {
                problem("identity_headers", "must be \"gateway\", \"easyauth\" or \"oauth2-proxy\"")
            }
        }
        return route
    }

    private mutating func readUpstreams(_ value: JSONValue?) -> [String] {
        guard let value else {
            problem("upstream", "is required: a URL or a list of URLs")
            return []
        }
        let urls: [String]
        if let text = value.stringValue {
            urls = [text]
        } else if let list = value.arrayValue, !list.isEmpty, let texts = Self.strings(list) {
            urls = texts
        } else {
            problem("upstream", "must be a URL or a non-empty list of URLs")
            return []
        }
        for url in urls where !Self.isUpstreamURL(url) {
            problem("upstream", "\"\(url)\" is not http(s)://host[:port][/prefix] (no user info, query or fragment)")
        }
        return urls
    }

    private mutating func readSeconds(_ value: JSONValue?, _ member: String) -> Duration? {
        guard let value else { return nil }
        guard let number = value.numberValue?.double, number.isFinite, number > 0, number <= 3600 else {
            problem(member, "must be seconds from 0 (exclusive) to 3600")
            return nil
        }
        return .milliseconds(Int64((number * 1000).rounded()))
    }

    static func strings(_ list: [JSONValue]) -> [String]? {
        let texts = list.compactMap(\.stringValue)
        return texts.count == list.count ? texts : nil
    }

    static func isName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
    }

    /// A host as `Host` carries it: a name of letters, digits, `-` and `.`, or a bracketed IPv6
    /// literal; an optional port is accepted and ignored.
    static func isHost(_ text: String) -> Bool {
        let host = RouteTable.normalizedHost(text)
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        if host.hasPrefix("[") { return host.hasSuffix("]") && host.utf8.count > 2 }
        return host.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    /// A route or public path: what `RequestPath` accepts as a path, without a query.
    static func isPathPrefix(_ text: String) -> Bool {
        !text.contains("?") && RequestPath.checked(text) == text
    }

    static func isUpstreamURL(_ url: String) -> Bool {
        let lowered = url.lowercased()
        let scheme = lowered.hasPrefix("https://") ? "https://" : lowered.hasPrefix("http://") ? "http://" : nil
        guard let scheme else { return false }
        let rest = url.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" }
        return !authority.isEmpty && !authority.contains("@")
            && url.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
    }
}
