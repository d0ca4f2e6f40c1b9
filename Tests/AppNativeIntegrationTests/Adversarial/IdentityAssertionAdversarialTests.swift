import AppNativeDevPeers
import AppNativeTesting
import Foundation
import Testing

/// The signed assertion (`X-AppNative-Identity`) and the plain identity headers state one
/// identity: a user whose roles change between requests never gets an assertion with the old ones.
@Suite("Adversarial: identity assertion", .serialized, .timeLimit(.minutes(2)))
struct IdentityAssertionAdversarialTests {
    /// The claims of a JWT's payload (decoded, not verified: IdentityTests verifies the signature).
    static func claims(of jwt: String) throws -> [String: Any] {
        let segments = jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(segments.count == 3, "the assertion is a JWS compact serialization")
        var base64 = segments[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// What the upstream was told by one request with `token`: the plain headers and the claims of
    /// the assertion.
    static func told(port: Int, token: String) async throws -> (headers: [String: String], claims: [String: Any]) {
        let response = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
        try #require(response.status == 200)
        var headers: [String: String] = [:]
        for (name, value) in try ProxyFixture.echoedHeaders(response) { headers[name] = value }
        let assertion = try #require(headers["x-appnative-identity"])
        return (headers, try claims(of: assertion))
    }

    @Test("the same user with changing roles: the assertion's roles are the X-AppNative-User-Roles header's every time")
    func roleChange() async throws {
        // One loop, so the per-loop rendering cache sees every request too.
        let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": "/public", "EVENT_LOOPS": "1"])
        defer { fixture.stop() }
        let provider = try ProxyFixture.devProvider()
        // Minted in the same second with the same lifetime: only the roles tell them apart.
        let now = Date().timeIntervalSince1970
        func token(_ roles: [String]) throws -> String {
            var user = DevIdentityProvider.User()
            user.roles = roles
            return try provider.token(for: user, issuedAt: now)
        }
        // A role granted, another granted, all revoked, then back: each twice (the second is a cache hit).
        let sequence: [[String]] = [["Reader"], ["Reader", "Admin"], [], ["Reader"], ["Admin", "Reader"]]
        for roles in sequence {
            let credential = try token(roles)
            for round in 1...2 {
                let (headers, claims) = try await Self.told(port: fixture.port, token: credential)
                let headerRoles = headers["x-appnative-user-roles"].map { $0.split(separator: ",").map(String.init) } ?? []
                let assertedRoles = claims["roles"] as? [String] ?? []
                #expect(assertedRoles == roles, "round \(round) of \(roles): the assertion states \(assertedRoles)")
                #expect(headerRoles.map { $0.removingPercentEncoding ?? $0 } == roles, "round \(round) of \(roles): the header states \(headerRoles)")
                #expect(claims["sub"] as? String == headers["x-appnative-user-id"])
                #expect(claims["email"] as? String == headers["x-appnative-user-email"])
                #expect(claims["amr"] as? String == headers["x-appnative-auth-method"])
            }
        }
    }
}
