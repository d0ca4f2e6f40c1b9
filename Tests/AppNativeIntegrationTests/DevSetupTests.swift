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
        // A browser that signed in sees the demo upstream's page of who it is, values escaped.
        let page = try await blocking {
            try RawHTTPClient.get(port: port, "/", headers: ["Cookie": cookie, "Accept": "text/html,application/xhtml+xml,*/*;q=0.8"])
        }
        #expect(page.status == 200)
        #expect(page.head.headers.first("Content-Type") == "text/html; charset=utf-8")
        #expect(page.bodyText.contains("<th>X-AppNative-User-Email</th><td>dev.user@example.com</td>"))
        #expect(page.bodyText.contains("action=\"/.auth/logout\""))
        let jwks = try await blocking { try RawHTTPClient.get(port: port, "/.auth/jwks.json") }
        #expect(jwks.bodyText.contains("\"crv\":\"P-256\""))
        let exit = await gateway.terminate()
        #expect(exit == 0)
    }

    /// What each printed command must show, keyed by a piece of the command.
    static let walkThroughExpectations: [(command: String, output: String)] = [
        ("curl -i http", "HTTP/1.1 401"),
        ("/hello -H", "\"X-AppNative-User-Email\":\"dev.user@example.com\""),
        ("/.auth/session", "HTTP/1.1 204"),
        ("/.auth/me", "\"auth_method\":\"cookie\""),
        ("/.auth/jwks.json", "\"crv\":\"P-256\""),
        ("/api/widgets", "\"kind\":\"web\""),
        ("/api/devices", "{\"ok\":true}"),
        ("/api/documents", "{\"ok\":true,\"id\":\"demo-document-1\"}"),
        ("/push/alert", "\"sent\":true"),
        ("token verify", "\"valid\":true"),
    ]

    @Test("every command of the printed walk-through runs in a shell, as printed, and shows what it says")
    func printedCommands() async throws {
        let root = ProcessRunner.repositoryRoot()
        let gateway = try await GatewayProcess.start(command: "dev", environment: ["APPNATIVE_REPOSITORY_ROOT": root])
        defer { gateway.stop() }
        let token = try #require(gateway.output.first { $0.contains("export TOKEN=") }?.components(separatedBy: "TOKEN=").last)
        let commands = gateway.output
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("curl ") || $0.hasPrefix("echo \"$TOKEN\"") }
        #expect(commands.count == Self.walkThroughExpectations.count, "\(commands)")
        // A scratch folder shaped like the repository (README.md, .build), so cookies.txt lands there.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("walkthrough-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.copyItem(atPath: root + "/README.md", toPath: scratch + "/README.md")
        try FileManager.default.createSymbolicLink(atPath: scratch + "/.build", withDestinationPath: root + "/.build")
        for command in commands {
            let expectation = try #require(Self.walkThroughExpectations.first { command.contains($0.command) }, "\(command)")
            let result = try await ProcessRunner.run(
                "/bin/bash", ["-c", "cd \(scratch) && " + command], environment: ["TOKEN": token, "PATH": "/usr/bin:/bin", "APPNATIVE_REPOSITORY_ROOT": root]
            )
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stdout.contains(expectation.output), "\(command) printed \(result.stdout)")
        }
    }

    @Test("the served OpenAPI document is docs/openapi.json (regenerate: curl …/.auth/openapi.json | python3 -m json.tool)")
    func openAPIDocumentInSync() async throws {
        let root = ProcessRunner.repositoryRoot()
        let gateway = try await GatewayProcess.start(command: "dev", environment: ["APPNATIVE_REPOSITORY_ROOT": root])
        defer { gateway.stop() }
        let port = gateway.port
        let served = try await blocking { try RawHTTPClient.get(port: port, "/.auth/openapi.json") }
        #expect(served.status == 200)
        let committed = try Data(contentsOf: URL(fileURLWithPath: root + "/docs/openapi.json"))
        let servedObject = try JSONSerialization.jsonObject(with: Data(served.body)) as? NSDictionary
        let committedObject = try JSONSerialization.jsonObject(with: committed) as? NSDictionary
        #expect(servedObject != nil && servedObject == committedObject, "docs/openapi.json differs from the served document")
    }
}
