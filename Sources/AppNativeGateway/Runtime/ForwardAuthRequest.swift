import AppNativeHTTP

/// The original request a forward-auth front proxy asks `verify` about, read from the fields the
/// proxies send: nginx `auth_request` (`X-Original-URI`, `X-Original-Method`, set in its
/// configuration) and Caddy `forward_auth` and Traefik ForwardAuth (`X-Forwarded-Uri`,
/// `X-Forwarded-Method`). Every other field of the original request (`Cookie`, `Authorization`,
/// `Origin`, `Host`, `Upgrade`, …) is passed on by those proxies as it came.
///
/// A proxy overwrites its own family of fields but passes the other family as the client sent
/// it, so neither family may simply win: a client behind nginx could otherwise send
/// `X-Forwarded-Uri: /public/x` with a request for `/admin`. When both families are present they
/// must agree, each field must appear once, and the method must be one the gateway accepts
/// itself; anything else is refused (400) rather than guessed at. Without a target or a method
/// there is no request to judge: 400 as well, never a decision on the verify request's own
/// path or method.
enum ForwardAuthRequest {
    /// Why the original request cannot be read; `reason` is a log and metric code.
    struct Problem: Error, Equatable {
        let reason: String
        let detail: String
    }

    static let targetFields = ["X-Original-URI", "X-Forwarded-Uri"]
    static let methodFields = ["X-Original-Method", "X-Forwarded-Method"]

    /// The original request: `request` (its fields) with the original method and target.
    static func original(of request: HTTPRequestHead) -> Result<HTTPRequestHead, Problem> {
        let target: String
        let method: String
        switch (value(of: targetFields, in: request.headers), value(of: methodFields, in: request.headers)) {
        case (.failure(let problem), _), (_, .failure(let problem)):
            return .failure(problem)
        case (.success(nil), _), (_, .success(nil)):
            return .failure(Problem(
                reason: "forward_auth_original",
                detail: "verify needs the original request: X-Original-URI and X-Original-Method, or X-Forwarded-Uri and X-Forwarded-Method"
            ))
        case (.success(let foundTarget?), .success(let foundMethod?)):
            target = foundTarget
            method = foundMethod
        }
        guard HTTPRequestParser.allowedMethods.contains(method) else {
            return .failure(Problem(reason: "forward_auth_method", detail: "The original method is not one the gateway accepts"))
        }
        var original = request
        original.method = method
        original.target = target
        return .success(original)
    }

    /// The one value the fields `names` agree on; `nil` when none is present.
    private static func value(of names: [String], in headers: HTTPHeaders) -> Result<String?, Problem> {
        var found: String?
        for name in names {
            let values = headers.values(name)
            guard values.count <= 1 else {
                return .failure(Problem(reason: "forward_auth_conflict", detail: "\(name) appears more than once"))
            }
            guard let value = values.first else { continue }
            if let found, found != value {
                return .failure(Problem(reason: "forward_auth_conflict", detail: "\(names.joined(separator: " and ")) disagree"))
            }
            found = value
        }
        return .success(found)
    }
}
