import AppNativeHTTP
import AppNativeTesting
import Foundation
import Testing

/// `make run` (the `dev` command) and its printed walk-through, followed step by step.
@Suite("make run: the dev setup")
struct DevSetupTests {
    @Test("the printed token and walk-through work against the running dev setup")
    func walkThrough() async throws {
        let gateway = try await GatewayProcess.start(
            command: "dev",
            environment: ["APPNATIVE_REPOSITORY_ROOT": ProcessRunner.repositoryRoot()]
        )
        defer { gateway.stop() }
        let token = try #require(gateway.output.first { $0.contains("export TOKEN=") }?.components(separatedBy: "TOKEN=").last)
        #expect(gateway.output.contains { $0.contains("DEV KEYS ONLY") })
        let port = gateway.port
        let anonymous = try await blocking { try RawHTTPClient.get(port: port, "/hello") }
        #expect(anonymous.status == 401)
        let signedIn = try await blocking { try RawHTTPClient.get(port: port, "/hello", headers: ["Authorization": "Bearer \(token)"]) }
        #expect(signedIn.status == 200)
        #expect(signedIn.bodyText.contains("\"X-AppNative-User-Email\":\"dev.user@example.com\""))
        let session = try await blocking { () -> RawHTTPClient.Response in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /.auth/session HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\nContent-Length: 0\r\n\r\n")
            return try client.readResponse(to: "POST")
        }
        #expect(session.status == 204)
        let cookie = try #require(session.head.headers.first("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let me = try await blocking { try RawHTTPClient.get(port: port, "/.auth/me", headers: ["Cookie": cookie]) }
        #expect(me.status == 200)
        #expect(me.bodyText.contains("\"auth_method\":\"cookie\""))
        let jwks = try await blocking { try RawHTTPClient.get(port: port, "/.auth/jwks.json") }
        #expect(jwks.bodyText.contains("\"crv\":\"P-256\""))
        let exit = await gateway.terminate()
        #expect(exit == 0)
    }
}
