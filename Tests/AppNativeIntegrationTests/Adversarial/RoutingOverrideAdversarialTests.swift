import AppNativeDevPeers
import AppNativeTesting
import Foundation
import Testing

/// Fields that re-route a request or change its method after the gateway's path and method rules
/// ran (`X-Original-URL`, `X-Rewrite-URL`, `X-HTTP-Method-Override`, `X-HTTP-Method`,
/// `X-Method-Override`) never reach the upstream from a client, at any door that forwards: the
/// proxy (public and authenticated paths), the native routes, and request trailers.
@Suite("Adversarial: routing overrides", .serialized, .timeLimit(.minutes(2)))
struct RoutingOverrideAdversarialTests {
    static let routingNames = ["X-Original-URL", "X-Rewrite-URL"]
    static let methodOverrideNames = ["X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"]

    /// Every name as sent, lower- and upper-cased and with `_` for `-`; each value names its field.
    static func spellings(_ names: [String]) -> [String] {
        names.flatMap { [$0, $0.lowercased(), $0.uppercased(), $0.replacingOccurrences(of: "-", with: "_")] }
    }

    static func fieldLines(_ names: [String]) -> String {
        spellings(names).enumerated().map { "\($0.element): override-\($0.offset)-\($0.element)\r\n" }.joined()
    }

    /// A recording upstream behind a gateway whose `/public/` is open and whose tokens verify
    /// (the dev key set, served by jwks_server.py).
    struct Fixture {
        let jwks: LoopbackPeer
        let recording: RecordingUpstreamFixture

        static func start(_ environment: [String: String] = [:]) async throws -> Fixture {
            let jwksFile = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
            try ProxyFixture.devProvider().jwksDocument.write(to: jwksFile, atomically: true, encoding: .utf8)
            let jwks = try await LoopbackPeer.start(
                ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/jwks_server.py", "--document", jwksFile.path])
            do {
                let recording = try await RecordingUpstreamFixture.start(
                    ["ENTRA_JWKS_URL": "http://127.0.0.1:\(jwks.port)/keys", "PUBLIC_PATHS": "/public/"].merging(environment) { $1 })
                return Fixture(jwks: jwks, recording: recording)
            } catch {
                jwks.stop()
                throw error
            }
        }

        func stop() {
            recording.stop()
            jwks.stop()
        }

        /// Sends `request` and returns the status and what the upstream received for `target`.
        func send(_ request: String, target: String) async throws -> (status: Int, upstream: UpstreamLog.Request?) {
            let port = recording.port
            let recording = recording
            return try await blocking {
                try recording.resetLog()
                let client = try RawHTTPClient(port: port)
                try client.send(request)
                let method = String(request.prefix { $0 != " " })
                let status = try client.readResponse(to: method).status
                return (status, try recording.log().requests.last { $0.target == target })
            }
        }
    }

    /// The requests of every forwarding door, each carrying `fields` in its head (and its
    /// trailers, for the chunked one).
    static func doors(_ fields: String) throws -> [(label: String, target: String, request: String)] {
        let token = try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970)
        return [
            ("public path", "/public/a", "GET /public/a HTTP/1.1\r\nHost: gw.test\r\n\(fields)X-Original-URI: /kept\r\n\r\n"),
            ("authenticated path", "/private/b",
             "DELETE /private/b HTTP/1.1\r\nHost: gw.test\r\nAuthorization: Bearer \(token)\r\n\(fields)\r\n"),
            ("native route", "/api/widgets", "GET /api/widgets HTTP/1.1\r\nHost: gw.test\r\nAuthorization: Bearer \(token)\r\n\(fields)\r\n"),
            ("request trailers", "/public/c",
             "POST /public/c HTTP/1.1\r\nHost: gw.test\r\nTransfer-Encoding: chunked\r\n\(fields)\r\n5\r\nhello\r\n0\r\n\(fields)\r\n"),
        ]
    }

    /// The names (lower-cased) among `names` that reached the upstream in its head or trailers.
    static func received(_ upstream: UpstreamLog.Request) -> [String] {
        (upstream.headers + (upstream.trailers ?? [])).filter { $0[1].hasPrefix("override-") }.map { $0[0].lowercased() }
    }

    @Test("by default no routing-override or method-override field reaches the upstream, in any spelling, at any door")
    func removedByDefault() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        for door in try Self.doors(Self.fieldLines(Self.routingNames + Self.methodOverrideNames)) {
            let (status, upstream) = try await fixture.send(door.request, target: door.target)
            let forwarded = try #require(upstream, "\(door.label): the request did not reach the upstream (status \(status))")
            #expect(Self.received(forwarded).isEmpty, "\(door.label): reached the upstream: \(Self.received(forwarded))")
            #expect(forwarded.method == String(door.request.prefix { $0 != " " }), "\(door.label)")
            if door.label == "public path" {
                // A different name (what a front proxy's forward-auth sends) is not one of them.
                #expect(forwarded.values("x-original-uri") == ["/kept"])
            }
        }
    }

    @Test("PASS_METHOD_OVERRIDE=true keeps the method-override fields (as sent, `-` names only) and still removes the routing ones")
    func methodOverridePassed() async throws {
        let fixture = try await Fixture.start(["PASS_METHOD_OVERRIDE": "true"])
        defer { fixture.stop() }
        // Every field whose name has `_` is dropped anyway (some stacks read it as `-`).
        let kept = Set(Self.spellings(Self.methodOverrideNames).filter { !$0.contains("_") }.map { $0.lowercased() })
        for door in try Self.doors(Self.fieldLines(Self.routingNames + Self.methodOverrideNames)) {
            let (status, upstream) = try await fixture.send(door.request, target: door.target)
            let forwarded = try #require(upstream, "\(door.label): the request did not reach the upstream (status \(status))")
            let names = Self.received(forwarded)
            #expect(!names.contains { $0.hasPrefix("x-original-url") || $0.hasPrefix("x-rewrite-url") }, "\(door.label): \(names)")
            // Trailers never carry them: a trailer is no place for a field that changes how the
            // request is handled.
            #expect(!(forwarded.trailers ?? []).contains { $0[1].hasPrefix("override-") }, "\(door.label): \(forwarded.trailers ?? [])")
            let inHead = forwarded.headers.filter { $0[1].hasPrefix("override-") }.map { $0[0].lowercased() }
            #expect(Set(inHead) == kept, "\(door.label): \(inHead)")
            #expect(inHead.count == kept.count * 3, "\(door.label): every spelling kept: \(inHead)")
        }
    }
}
