public import AppNativeAuth
import AppNativeJSON
import Foundation

/// The optional access-policy file (`ACCESS_POLICY_FILE`): rules by path prefix and method that
/// require app roles (`roles` claim, a user's or an application's) or groups (`groups` claim). The first matching rule wins; no match means
/// "authenticated" (any verified user).
///
/// ```json
/// {"rules": [
///   {"path": "/admin/", "methods": ["POST", "DELETE"], "roles": ["Admin"]},
///   {"path": "/reports/", "groups": ["0a1b…"]},
///   {"path": "/", "allow": "authenticated"}
/// ]}
/// ```
public struct AccessPolicy: Sendable {
    public struct Rule: Sendable {
        /// The rule's path, matched on segment boundaries.
        public var pathPrefix: String {
            get { prefix.description }
            set { prefix = PathPrefix(newValue) }
        }
        var prefix: PathPrefix
        /// Upper-case methods; empty: every method.
        public var methods: [String]
        /// Any one of these roles or groups grants access; both empty: any verified user.
        public var roles: [String]
        public var groups: [String]

        public init(pathPrefix: String, methods: [String] = [], roles: [String] = [], groups: [String] = []) {
            prefix = PathPrefix(pathPrefix)
            self.methods = methods
            self.roles = roles
            self.groups = groups
        }
    }

    public let rules: [Rule]

    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public init(rules: [Rule]) {
        self.rules = rules
    }

    public static func load(path: String) throws(Invalid) -> AccessPolicy {
        guard let data = FileManager.default.contents(atPath: path) else { throw Invalid(description: "cannot read \(path)") }
        let root: JSONValue
        do {
            root = try JSONParser().parse(Array(data))
        } catch {
            throw Invalid(description: "\(path) is not valid JSON (\(error.code))")
        }
        return try parse(root, source: path)
    }

    /// The policy in a parsed document (`{"rules": […]}`): an `ACCESS_POLICY_FILE`, or a route's
    /// `policy` in `ROUTES_FILE`. `source` names it in the problems.
    static func parse(_ root: JSONValue, source: String) throws(Invalid) -> AccessPolicy {
        guard let entries = root["rules"]?.arrayValue else { throw Invalid(description: "\(source) needs a \"rules\" array") }
        var rules = [Rule]()
        for (index, entry) in entries.enumerated() {
            guard let object = entry.objectValue, let prefix = object["path"]?.stringValue, prefix.hasPrefix("/") else {
                throw Invalid(description: "rules[\(index)].path must be a string starting with /")
            }
            func strings(_ name: String) throws(Invalid) -> [String] {
                guard let value = object[name] else { return [] }
                guard let list = value.arrayValue?.compactMap(\.stringValue), list.count == value.arrayValue?.count else {
                    throw Invalid(description: "rules[\(index)].\(name) must be an array of strings")
                }
                return list
            }
            if let allow = object["allow"], allow.stringValue != "authenticated" {
                throw Invalid(description: "rules[\(index)].allow may only be \"authenticated\"")
            }
            rules.append(Rule(pathPrefix: prefix, methods: try strings("methods").map { $0.uppercased() },
                              roles: try strings("roles"), groups: try strings("groups")))
        }
        return AccessPolicy(rules: rules)
    }

    /// What the policy says about a request.
    public enum Decision: Sendable, Equatable {
        case allow
        case deny
        /// The matching rule grants by group, the caller holds none of its roles, and the
        /// credential did not carry all the caller's groups (`UserIdentity.hasGroupsOverage`):
        /// only a `GroupsSource` can decide (`allows(_:groups:method:path:)`).
        case needsGroups
    }

    /// The decision for `user` sending `method` to `path`, from the roles and groups its
    /// credential carried. A rule's path matches on segment boundaries (`/admin` and `/admin/`
    /// cover `/admin` and `/admin/x`, not `/administration`). App roles of an application's
    /// app-only token count like a user's roles.
    public func decision(for user: UserIdentity, method: String, path: String) -> Decision {
        guard let rule = rule(for: method, path: path) else { return .allow }
        if rule.roles.isEmpty && rule.groups.isEmpty { return .allow }
        if rule.roles.contains(where: user.roles.contains) || rule.groups.contains(where: user.groups.contains) { return .allow }
        return !rule.groups.isEmpty && user.hasGroupsOverage ? .needsGroups : .deny
    }

    /// Whether `user` may send `method` to `path`, with `groups` as the caller's whole group list
    /// (from a `GroupsSource`, for a `needsGroups` decision).
    public func allows(_ user: UserIdentity, groups: [String], method: String, path: String) -> Bool {
        guard let rule = rule(for: method, path: path) else { return true }
        if rule.roles.isEmpty && rule.groups.isEmpty { return true }
        return rule.roles.contains(where: user.roles.contains) || rule.groups.contains(where: groups.contains)
    }

    /// Whether `user` may send `method` to `path` on what its credential carried (a groups
    /// overage cannot grant a `groups` rule here).
    public func allows(_ user: UserIdentity, method: String, path: String) -> Bool {
        decision(for: user, method: method, path: path) == .allow
    }

    private func rule(for method: String, path: String) -> Rule? {
        rules.first(where: { $0.prefix.matches(path) && ($0.methods.isEmpty || $0.methods.contains(method)) })
    }
}
