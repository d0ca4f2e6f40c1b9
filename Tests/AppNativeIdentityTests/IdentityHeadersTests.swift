import AppNativeHTTP
import AppNativeIdentity
import AppNativeJSON
import Foundation
import Testing

/// The identity header profiles the upstream receives (docs/identity.md).
@Suite struct IdentityHeadersTests {
    func headers(_ profile: IdentityHeaders.Profile, name: String? = "Zoë Doe", roles: [String] = ["admin", "read"]) -> HTTPHeaders {
        IdentityHeaders.headers(
            profile: profile, objectID: "oid-1", email: "zoe@example.com", name: name, upn: nil, tenantID: "tenant-1",
            method: "token", roles: roles, assertion: "signed")
    }

    @Test func gatewayProfileEncodesWhatIsNotPrintableASCII() {
        let fields = headers(.gateway)
        #expect(fields.first("X-AppNative-User-Id") == "oid-1")
        #expect(fields.first("X-AppNative-User-Name") == "Zo%C3%AB Doe")
        #expect(fields.first("X-AppNative-User-Roles") == "admin,read")
        #expect(fields.first("X-AppNative-Auth-Method") == "token")
        #expect(fields.first(IdentityHeaders.assertionHeader) == "signed")
        #expect(!fields.contains("X-AppNative-User-UPN"))
        #expect(IdentityHeaders.encode("100%") == "100%25")
    }

    @Test func easyAuthPrincipalIsBase64JSON() throws {
        let fields = headers(.easyAuth)
        #expect(fields.first("X-MS-CLIENT-PRINCIPAL-ID") == "oid-1")
        #expect(fields.first("X-MS-CLIENT-PRINCIPAL-IDP") == "aad")
        let encoded = try #require(fields.first("X-MS-CLIENT-PRINCIPAL"))
        let decoded = try #require(Data(base64Encoded: encoded))
        let principal = try #require(try JSONParser().parse(Array(decoded)).objectValue)
        #expect(principal["auth_typ"] == "aad")
        #expect(principal["name_typ"] == "preferred_username")
        #expect(principal["role_typ"] == "roles")
        let claims = try #require(principal["claims"]?.arrayValue).compactMap { claim -> [String]? in
            guard let typ = claim.objectValue?["typ"]?.stringValue, let val = claim.objectValue?["val"]?.stringValue else { return nil }
            return [typ, val]
        }
        #expect(claims.contains(["http://schemas.microsoft.com/identity/claims/objectidentifier", "oid-1"]))
        #expect(claims.contains(["name", "Zoë Doe"]))
        #expect(claims.filter { $0[0] == "roles" }.map { $0[1] } == ["admin", "read"])
    }

    @Test func oauth2ProxyProfile() {
        let fields = headers(.oauth2Proxy, name: nil, roles: [])
        #expect(fields.first("X-Forwarded-User") == "oid-1")
        #expect(fields.first("X-Forwarded-Preferred-Username") == "zoe@example.com")
        #expect(!fields.contains("X-Forwarded-Groups"))
    }

    /// Every header a profile writes is one the proxy removes when a client sends it.
    @Test(arguments: IdentityHeaders.Profile.allCases)
    func everyWrittenHeaderIsAForgedName(profile: IdentityHeaders.Profile) {
        for field in headers(profile) {
            #expect(IdentityHeaders.isIdentityHeader(field.name), "\(field.name)")
        }
    }
}
