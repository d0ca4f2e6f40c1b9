import AppNativeTesting
import Foundation
import Testing

/// Answers after which the gateway closes the connection reach a real client whole, over TLS
/// exactly as over plain TCP: a 401 to an upload the gateway never reads, any answer to
/// `Connection: close` or HTTP/1.0, parse errors (414, 405, 505). curl exits 0 and sees the
/// status and the JSON body; a reset or a missing close_notify would make it exit 56 or 35.
@Suite("Closing answers arrive over TLS and TCP", .serialized)
struct ClosingAnswerTests {
    static let root = ProcessRunner.repositoryRoot()

    struct Case: CustomStringConvertible {
        let label: String
        let arguments: [String]
        let path: String
        let status: Int
        var description: String { label }
    }

    static let cases: [Case] = [
        Case(label: "401 to a small unread POST body", arguments: ["-X", "POST", "--data", "a=1"], path: "/private/x", status: 401),
        Case(label: "401 to a large unread upload", arguments: ["-X", "POST", "--data-binary", "@BIG"], path: "/private/x", status: 401),
        Case(label: "401 with Connection: close", arguments: ["-H", "Connection: close"], path: "/private/x", status: 401),
        Case(label: "401 to HTTP/1.0", arguments: ["--http1.0"], path: "/private/x", status: 401),
        Case(label: "proxied 200 with Connection: close", arguments: ["-H", "Connection: close"], path: "/echo/a", status: 200),
        Case(label: "proxied 200 to HTTP/1.0", arguments: ["--http1.0"], path: "/echo/a", status: 200),
        Case(label: "414 for a long request line", arguments: [], path: "/echo/" + String(repeating: "a", count: 9000), status: 414),
        Case(label: "405 for TRACE", arguments: ["-X", "TRACE"], path: "/echo/a", status: 405),
    ]

    @Test("every closing answer arrives", arguments: [false, true])
    func closingAnswersArrive(overTLS: Bool) async throws {
        var environment = ["PUBLIC_PATHS": "/echo"]
        if overTLS {
            environment["TLS_CERT_FILE"] = Self.root + "/keys/test/localhost.pem"
            environment["TLS_KEY_FILE"] = Self.root + "/keys/test/localhost-key.pem"
        }
        let fixture = try await ProxyFixture.start(environment)
        defer { fixture.stop() }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("closing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let big = scratch.appendingPathComponent("big").path
        try Data(repeating: UInt8(ascii: "x"), count: 4 << 20).write(to: URL(fileURLWithPath: big))
        let base = (overTLS ? "https://localhost:" : "http://127.0.0.1:") + String(fixture.port)
        let tlsArguments = overTLS ? ["--cacert", Self.root + "/keys/test/ca.pem"] : []
        for item in Self.cases {
            // Repeated: a reset races the client's reads, so one lucky run proves little.
            for round in 0..<3 {
                let bodyFile = scratch.appendingPathComponent("body-\(round)").path
                let arguments = item.arguments.map { $0 == "@BIG" ? "@" + big : $0 }
                let result = try await ProcessRunner.run(
                    "/usr/bin/curl",
                    ["-sS", "--max-time", "30", "-o", bodyFile, "-w", "%{http_code}"] + tlsArguments + arguments
                        + [base + item.path]
                )
                #expect(result.status == 0, "\(item) round \(round) over \(overTLS ? "TLS" : "TCP"): curl \(result.status) \(result.stderr)")
                #expect(result.stdout == String(item.status), "\(item) round \(round): status \(result.stdout)")
                let body = (try? String(contentsOfFile: bodyFile, encoding: .utf8)) ?? ""
                if item.status != 200 {
                    #expect(body.hasPrefix("{\"detail\":"), "\(item) round \(round): body \(body.prefix(200))")
                }
            }
        }
        // The gateway keeps serving after all of it.
        let after = try await ProcessRunner.run(
            "/usr/bin/curl", ["-sS", "--max-time", "30", "-o", "/dev/null", "-w", "%{http_code}"] + tlsArguments + [base + "/echo/after"]
        )
        #expect(after.stdout == "200")
    }
}
