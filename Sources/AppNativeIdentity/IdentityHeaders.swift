public import AppNativeHTTP
import AppNativeJSON

/// The verified identity as request headers for the upstream, and the removal of every
/// identity header a client could forge.
///
/// Profiles:
/// - `gateway` (default): `X-AppNative-User-Id` (oid), `-User-Email` (users), `-User-Name`,
///   `-User-UPN`, `-User-Roles`, `-User-Groups`, `X-AppNative-Tenant-Id`, `X-AppNative-Auth-Method`
///   (`token`/`cookie`), `X-AppNative-Caller-Type` (`user`/`app`), `X-AppNative-Client-Id`, and
///   the signed assertion `X-AppNative-Identity`.
/// - `easyauth`: Azure App Service's `X-MS-CLIENT-PRINCIPAL` (base64 JSON principal with the
///   token's claims: `roles`, `groups`, `idtyp`, `azp`, …), `-ID`, `-NAME`, `-IDP`, so backends
///   written for App Service run unchanged.
/// - `oauth2-proxy`: `X-Forwarded-User` (oid), `X-Forwarded-Email` (users),
///   `X-Forwarded-Preferred-Username`, `X-Forwarded-Groups` (groups, as oauth2-proxy sends them);
///   oauth2-proxy has no words for roles, caller type or client, so those go under the gateway's
///   names (`X-AppNative-User-Roles`, `-Caller-Type`, `-Client-Id`), stripped from every client
///   request like all `X-AppNative-` fields.
///
/// Encoding: values that are not printable ASCII, and any `%`, are percent-encoded as UTF-8
/// (RFC 3986). Upstreams always percent-decode (`urllib.parse.unquote`, `decodeURIComponent`,
/// `Uri.UnescapeDataString`); plain ASCII values decode to themselves.
public enum IdentityHeaders: Sendable {
    public enum Profile: String, Sendable, CaseIterable {
        case gateway
        case easyAuth = "easyauth"
        case oauth2Proxy = "oauth2-proxy"
    }

    public static let assertionHeader = "X-AppNative-Identity"

    /// Names (and name prefixes ending in `-`) removed from every request before anything is added.
    /// Matched ASCII-case-insensitively with `_` read as `-` (fields with `_` are dropped anyway).
    public static let forgedNames: [String] = [
        "X-AppNative-",
        "X-MS-CLIENT-PRINCIPAL", "X-MS-TOKEN-",
        "X-Forwarded-User", "X-Forwarded-Email", "X-Forwarded-Preferred-Username", "X-Forwarded-Groups",
        "X-Forwarded-Access-Token",
        "X-Auth-Request-",
        "Remote-User", "Remote-Email", "Remote-Groups", "Remote-Name",
        "X-Remote-User", "X-Remote-Email", "X-Remote-Groups", "X-Remote-Name",
        "X-Goog-Authenticated-User-", "X-Goog-IAP-JWT-Assertion",
        "X-Authenticated-User", "X-Authenticated-Userid", "X-WEBAUTH-USER", "X-Webauth-Email",
        "X-User", "X-User-Id", "X-User-Email", "X-Email", "X-Auth-User", "Auth-User",
        "X-Amzn-Oidc-", "Cf-Access-Authenticated-User-Email", "Cf-Access-Jwt-Assertion",
        // The authorization hook's namespace: upstreams trust these as the hook's word.
        "X-Authz-",
    ]

    /// `forgedNames` as the patterns the proxy removes from every request head and trailer
    /// section, before anything is added.
    public static let forged = FieldNamePatterns(forgedNames)

    /// Whether `name` is (or starts with) one of the forged names.
    public static func isIdentityHeader(_ name: String) -> Bool {
        forged.matches(name)
    }

    /// The headers of `profile` for a verified identity.
    ///
    /// - Parameters:
    ///   - email: a user's email; `nil` for an application (`callerType` `app`).
    ///   - callerType: `user` or `app`.
    ///   - clientID: the client application (`azp`/`appid`, an ID token's `aud`), when known.
    ///   - groups: the caller's group ids (the `groups` claim).
    public static func headers(
        profile: Profile,
        objectID: String,
        email: String?,
        name: String?,
        upn: String?,
        tenantID: String,
        method: String,
        roles: [String],
        groups: [String] = [],
        callerType: String = "user",
        clientID: String? = nil,
        assertion: String?
    ) -> HTTPHeaders {
        var headers = HTTPHeaders()
        switch profile {
        case .gateway:
            headers.add(name: "X-AppNative-User-Id", value: encode(objectID))
            if let email { headers.add(name: "X-AppNative-User-Email", value: encode(email)) }
            if let name { headers.add(name: "X-AppNative-User-Name", value: encode(name)) }
            if let upn { headers.add(name: "X-AppNative-User-UPN", value: encode(upn)) }
            headers.add(name: "X-AppNative-Tenant-Id", value: encode(tenantID))
            headers.add(name: "X-AppNative-Auth-Method", value: method)
            addCaller(&headers, callerType: callerType, clientID: clientID)
            if !roles.isEmpty { headers.add(name: "X-AppNative-User-Roles", value: list(roles)) }
            if !groups.isEmpty { headers.add(name: "X-AppNative-User-Groups", value: list(groups)) }
        case .easyAuth:
            headers.add(name: "X-MS-CLIENT-PRINCIPAL", value: easyAuthPrincipal(
                objectID: objectID, email: email, name: name, upn: upn, tenantID: tenantID, roles: roles, groups: groups,
                callerType: callerType, clientID: clientID))
            headers.add(name: "X-MS-CLIENT-PRINCIPAL-ID", value: encode(objectID))
            // App Service names a user by their sign-in name; an application has none, so its client id.
            headers.add(name: "X-MS-CLIENT-PRINCIPAL-NAME", value: encode(email ?? clientID ?? objectID))
            headers.add(name: "X-MS-CLIENT-PRINCIPAL-IDP", value: "aad")
        case .oauth2Proxy:
            headers.add(name: "X-Forwarded-User", value: encode(objectID))
            if let email { headers.add(name: "X-Forwarded-Email", value: encode(email)) }
            if let preferred = upn ?? email { headers.add(name: "X-Forwarded-Preferred-Username", value: encode(preferred)) }
            if !groups.isEmpty { headers.add(name: "X-Forwarded-Groups", value: list(groups)) }
            addCaller(&headers, callerType: callerType, clientID: clientID)
            if !roles.isEmpty { headers.add(name: "X-AppNative-User-Roles", value: list(roles)) }
        }
        if let assertion { headers.add(name: assertionHeader, value: assertion) }
        return headers
    }

    private static func addCaller(_ headers: inout HTTPHeaders, callerType: String, clientID: String?) {
        headers.add(name: "X-AppNative-Caller-Type", value: encode(callerType))
        if let clientID { headers.add(name: "X-AppNative-Client-Id", value: encode(clientID)) }
    }

    private static func list(_ values: [String]) -> String {
        values.map(encode).joined(separator: ",")
    }

    /// App Service's principal: base64 of `{"auth_typ":"aad","claims":[{"typ","val"}…],"name_typ","role_typ"}`.
    /// A user's principal names them by `preferred_username` and email; an application's carries
    /// `idtyp: app` and no email (as App Service's does for a client-credentials token).
    static func easyAuthPrincipal(
        objectID: String, email: String?, name: String?, upn: String?, tenantID: String, roles: [String], groups: [String] = [],
        callerType: String = "user", clientID: String? = nil
    ) -> String {
        var claims: [(String, String)] = [
            ("http://schemas.microsoft.com/identity/claims/objectidentifier", objectID),
            ("http://schemas.microsoft.com/identity/claims/tenantid", tenantID),
        ]
        if let email {
            claims.append(("preferred_username", email))
            claims.append(("http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress", email))
        }
        if let name { claims.append(("name", name)) }
        if let upn { claims.append(("http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn", upn)) }
        claims.append(("idtyp", callerType))
        if let clientID { claims.append(("azp", clientID)) }
        for role in roles { claims.append(("roles", role)) }
        for group in groups { claims.append(("groups", group)) }
        let principal = JSONObject([
            ("auth_typ", .string("aad")),
            ("claims", .array(claims.map { .object(JSONObject([("typ", .string($0.0)), ("val", .string($0.1))])) })),
            ("name_typ", .string("preferred_username")),
            ("role_typ", .string("roles")),
        ])
        return base64(JSONSerializer.serialize(.object(principal)))
    }

    /// Percent-encodes `%`, controls and non-ASCII as UTF-8 (reversible with any URL decoder).
    public static func encode(_ value: String) -> String {
        var out = ""
        var needsEncoding = false
        for byte in value.utf8 where byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "%") {
            needsEncoding = true
            break
        }
        guard needsEncoding else { return value }
        let digits = Array("0123456789ABCDEF")
        for byte in value.utf8 {
            if byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "%") {
                out.append("%")
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            } else {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }

    private static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        var index = 0
        while index < bytes.count {
            let b0 = bytes[index], b1 = index + 1 < bytes.count ? bytes[index + 1] : 0, b2 = index + 2 < bytes.count ? bytes[index + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(index + 1 < bytes.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : "=")
            out.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : "=")
            index += 3
        }
        return out
    }
}


import Foundation
