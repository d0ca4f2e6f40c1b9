import AppNativeHTTP
import AppNativeIdentity
import Foundation
import Testing

/// The caller type, client and groups in each header profile, and their names in the forged list.
@Suite("Identity headers: callers and groups")
struct IdentityHeadersCallerTests {
    static func app(_ profile: IdentityHeaders.Profile) -> HTTPHeaders {
        IdentityHeaders.headers(
            profile: profile, objectID: "sp-oid", email: nil, name: nil, upn: nil, tenantID: "t", method: "token",
            roles: ["Reports.Read"], groups: ["g1"], callerType: "app", clientID: "svc", assertion: nil)
    }

    static func user(_ profile: IdentityHeaders.Profile) -> HTTPHeaders {
        IdentityHeaders.headers(
            profile: profile, objectID: "oid", email: "ada@example.com", name: "Ada", upn: nil, tenantID: "t", method: "cookie",
            roles: ["Approver"], groups: ["g1", "g2"], callerType: "user", clientID: "ios", assertion: nil)
    }

    @Test("gateway profile: caller type, client id, roles and groups; no email for an application")
    func gateway() {
        let app = Self.app(.gateway)
        #expect(app.first("X-AppNative-Caller-Type") == "app")
        #expect(app.first("X-AppNative-Client-Id") == "svc")
        #expect(app.first("X-AppNative-User-Id") == "sp-oid")
        #expect(app.first("X-AppNative-User-Roles") == "Reports.Read")
        #expect(app.first("X-AppNative-User-Groups") == "g1")
        #expect(app.first("X-AppNative-User-Email") == nil)
        let user = Self.user(.gateway)
        #expect(user.first("X-AppNative-Caller-Type") == "user")
        #expect(user.first("X-AppNative-User-Groups") == "g1,g2")
    }

    @Test("oauth2-proxy profile: X-Forwarded-Groups carries groups, roles go under the gateway's name")
    func oauth2Proxy() {
        let user = Self.user(.oauth2Proxy)
        #expect(user.first("X-Forwarded-Groups") == "g1,g2")
        #expect(user.first("X-AppNative-User-Roles") == "Approver")
        #expect(user.first("X-AppNative-Caller-Type") == "user")
        let app = Self.app(.oauth2Proxy)
        #expect(app.first("X-Forwarded-Email") == nil)
        #expect(app.first("X-Forwarded-Preferred-Username") == nil)
        #expect(app.first("X-AppNative-Caller-Type") == "app")
    }

    @Test("easyauth profile: the principal's claims say idtyp, azp, roles and groups")
    func easyAuth() throws {
        let app = Self.app(.easyAuth)
        let principal = try #require(app.first("X-MS-CLIENT-PRINCIPAL").flatMap { Data(base64Encoded: $0) })
        let text = String(decoding: principal, as: UTF8.self)
        for claim in [#"{"typ":"idtyp","val":"app"}"#, #"{"typ":"azp","val":"svc"}"#, #"{"typ":"roles","val":"Reports.Read"}"#,
                      #"{"typ":"groups","val":"g1"}"#] {
            #expect(text.contains(claim), "\(claim) missing from \(text)")
        }
        #expect(!text.contains("preferred_username\",\"val"))
        #expect(app.first("X-MS-CLIENT-PRINCIPAL-NAME") == "svc")
        #expect(app.first("X-MS-CLIENT-PRINCIPAL-IDP") == "aad")
    }

    @Test("every header the profiles send is in the forged list")
    func forged() {
        for profile in IdentityHeaders.Profile.allCases {
            for name in Self.app(profile).map(\.name) + Self.user(profile).map(\.name) {
                #expect(IdentityHeaders.isIdentityHeader(name), "\(profile): \(name)")
            }
        }
        for name in ["X-AppNative-Caller-Type", "X-AppNative-Client-Id", "X-AppNative-User-Groups", "X-MS-CLIENT-PRINCIPAL-IDP", "X-Forwarded-Groups"] {
            #expect(IdentityHeaders.isIdentityHeader(name))
        }
    }
}
