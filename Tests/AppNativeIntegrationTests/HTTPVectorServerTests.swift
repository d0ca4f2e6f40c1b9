import AppNativeTesting
import Foundation
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// The shared HTTP/1.1 request vectors (AppNativeHTTPTests/Fixtures/vectors/http1) sent byte for
/// byte through the real gateway on a socket, with Tests/Peers/echo_peer.py behind it recording
/// every byte that reaches the upstream.
///
/// - `reject-NNN`: the client gets exactly NNN, then the connection closes, and the upstream
///   received zero bytes.
/// - `accept`: exactly the request(s) reach the upstream, with method, target, body and
///   end-to-end fields as `expect` says, as a proxy forwards them (see `forwardingProblems`);
///   a connection that stays open still carries a follow-up request (no framing desync).
/// - `must-not-forward-as-is`: the same, plus the case's `forwarding` constraints; where the
///   case requires a Host, X-Forwarded-Host and `Forwarded: host=` must not carry another one.
/// - `pipelined`: `accept` follow-ups are answered in order; after an `ignore` the connection
///   closes and nothing of the ignored bytes reaches the upstream.
///
/// The gateway runs with the limits the vectors assume (request line 8 KiB, header section
/// 64 KiB, 100 fields, body 10 MiB). One gateway and upstream serve every case, one at a time
/// (`.serialized`): the upstream's log is reset before each case.
@Suite("HTTP vectors through the gateway", .serialized, .timeLimit(.minutes(3)), VectorGateway())
struct HTTPVectorServerTests {
    @Test("the vector file is complete and every pinned gateway verdict is one it allows")
    func vectorFile() throws {
        let vectors = try RequestVector.all()
        #expect(vectors.count == 123)
        #expect(Set(vectors.map(\.id)).count == vectors.count, "case ids are unique")
        for vector in vectors {
            let allowed = [vector.verdict] + (vector.alsoAcceptable ?? [])
            #expect(allowed.contains(vector.gatewayVerdict), "\(vector.id): pinned \(vector.gatewayVerdict) not in \(allowed)")
        }
        for id in RequestVector.gatewayVerdicts.keys {
            #expect(vectors.contains { $0.id == id }, "pinned verdict for unknown case \(id)")
        }
    }

    @Test("each case reaches its verdict through the gateway", arguments: try RequestVector.all())
    func verdict(_ vector: RequestVector) async throws {
        let fixture = try #require(VectorGateway.current, "the suite trait starts the gateway")
        let problems = try await blocking { try Self.problems(vector, fixture) }
        guard let known = Self.knownGatewayIssues[vector.id] else {
            if !problems.isEmpty {
                Issue.record("\(vector.id) (\(vector.gatewayVerdict)): \(problems.joined(separator: "; "))")
            }
            return
        }
        // Fails with "known issue was not recorded" once the gateway is fixed: then delete the entry.
        withKnownIssue("\(vector.id): \(known)") {
            if !problems.isEmpty {
                Issue.record("\(vector.id) (\(vector.gatewayVerdict)): \(problems.joined(separator: "; "))")
            }
        }
    }

    /// Gateway bugs these cases found, each with the fix that removes it. The case still runs
    /// and its problems are reported as known; once the fix lands `withKnownIssue` fails, and
    /// the entry must go. Keep this empty.
    static let knownGatewayIssues: [String: Comment] = [:]

    /// Sends the case and lists what is wrong, as readable lines; empty when it matches.
    static func problems(_ vector: RequestVector, _ fixture: RecordingUpstreamFixture) throws -> [String] {
        try fixture.resetLog()
        let client = try RawHTTPClient(port: fixture.port, timeout: .seconds(5))
        try client.send(vector.bytes)
        let verdict = vector.gatewayVerdict
        if verdict.hasPrefix("reject-") {
            return try refusalProblems(vector, status: Int(verdict.dropFirst("reject-".count)) ?? 0, client, fixture)
        }
        return try forwardingProblems(vector, client, fixture)
    }

    // MARK: Refusals

    static func refusalProblems(
        _ vector: RequestVector,
        status: Int,
        _ client: RawHTTPClient,
        _ fixture: RecordingUpstreamFixture
    ) throws -> [String] {
        var problems: [String] = []
        do {
            let response = try client.readResponse()
            if response.status != status { problems.append("status \(response.status), body \(response.bodyText.prefix(120))") }
            if !client.readsEndOfStream() { problems.append("connection still open after the refusal") }
        } catch {
            problems.append("no complete response: \(error)")
        }
        let log = try fixture.log()
        if log.bytes != 0 {
            problems.append("the upstream received \(log.bytes) byte(s): \(String(reflecting: String(log.raw.prefix(160))))")
        }
        return problems
    }

    // MARK: Forwarded requests

    static let followUpTarget = "/__follow-up"

    static func forwardingProblems(
        _ vector: RequestVector,
        _ client: RawHTTPClient,
        _ fixture: RecordingUpstreamFixture
    ) throws -> [String] {
        var problems: [String] = []
        // The request itself, then the pipelined entries up to the first `ignore`.
        var expected: [RequestVector.Expectation?] = [vector.expect]
        var ignoresRest = false
        for entry in vector.pipelined ?? [] {
            switch entry.verdict {
            case "accept": expected.append(entry.expect)
            case "ignore": ignoresRest = true
            default: problems.append("pipelined verdict \(entry.verdict) not handled by this test")
            }
            if ignoresRest { break }
        }
        if expected.contains(where: { $0?.headers.contains { $0[0].lowercased() == "expect" } ?? false }) {
            // RawHTTPClient cannot skip an interim response yet: read the 100 Continue the
            // gateway sends when it starts reading the body (RFC 9110 §10.1.1) off the socket.
            let interim = "HTTP/1.1 100 Continue\r\n\r\n"
            let received = receive(count: interim.utf8.count, from: client)
            if received != Array(interim.utf8) {
                problems.append("expected \(String(reflecting: interim)), got \(String(reflecting: String(decoding: received, as: UTF8.self)))")
            }
        }
        for index in expected.indices {
            do {
                let response = try client.readResponse()
                if response.status != 200 {
                    problems.append("response #\(index): status \(response.status), body \(response.bodyText.prefix(120))")
                }
            } catch {
                problems.append("response #\(index) missing: \(error)")
                break
            }
        }
        let closes = ignoresRest || expected.contains { $0.map(closesConnection) ?? false }
        if closes {
            if !client.readsEndOfStream() { problems.append("connection still open after a closing request") }
        } else if problems.isEmpty {
            // The gateway framed the request exactly as the client did: the next request on the
            // connection is read as a request, not as leftovers of a body.
            try client.send("GET \(followUpTarget) HTTP/1.1\r\nHost: gateway.test\r\n\r\n")
            do {
                let response = try client.readResponse()
                if response.status != 200 { problems.append("follow-up request: status \(response.status)") }
            } catch {
                problems.append("follow-up request not answered: \(error)")
            }
        }

        let log = try fixture.log()
        if !log.errors.isEmpty { problems.append("the upstream could not parse what it received: \(log.errors)") }
        var seen = log.requests
        if !closes, seen.last?.target == followUpTarget { seen.removeLast() }
        if seen.count != expected.count {
            problems.append("the upstream saw \(seen.count) request(s) \(seen.map(\.target)), expected \(expected.count)")
            return problems
        }
        for (index, request) in seen.enumerated() {
            let label = index == 0 ? "request" : "pipelined #\(index - 1)"
            if request.version != "HTTP/1.1" { problems.append("\(label): forwarded as \(request.version)") }
            problems += hopByHopProblems(request, label: label)
            if let expect = expected[index] {
                problems += expectationProblems(expect, request, upstreamPort: fixture.upstreamPort, label: label)
            }
        }
        if let forwarding = vector.forwarding, vector.gatewayVerdict == "must-not-forward-as-is", let first = seen.first {
            problems += constraintProblems(forwarding, first)
        }
        return problems
    }

    /// Exactly `count` bytes from the client's socket, fewer at end of stream or timeout.
    static func receive(count: Int, from client: RawHTTPClient) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            let n = unsafe bytes.withUnsafeMutableBytes { unsafe recv(client.descriptor, $0.baseAddress! + received, count - received, 0) }
            if n <= 0 { break }
            received += n
        }
        return Array(bytes[..<received])
    }

    /// Whether the client asked for the connection to end after this request (RFC 9112 §9.3).
    static func closesConnection(_ expect: RequestVector.Expectation) -> Bool {
        let tokens = expect.headers.filter { $0[0].lowercased() == "connection" }
            .flatMap { $0[1].lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        if tokens.contains("close") { return true }
        return expect.version == "HTTP/1.0" && !tokens.contains("keep-alive")
    }

    /// Fields a proxy removes (RFC 9110 §7.6.1, plus `Trailer` and `Proxy-*` as the gateway
    /// documents in HopByHopHeaders), lower case.
    static let hopByHop: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]
    /// Fields of the vectors the gateway removes as forgeable identity headers
    /// (`IdentityHeaders.forgedNames` in AppNativeIdentity, which this target does not import).
    static let identityFields: Set<String> = ["x-user"]
    /// Fields the gateway writes itself: Host, framing, forwarding, request id and trace context.
    static let gatewayFields: Set<String> = [
        "host", "content-length", "transfer-encoding", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host",
        "forwarded", "x-real-ip", "x-request-id", "traceparent", "tracestate",
    ]

    /// No hop-by-hop field reaches the upstream (except the framing field the gateway writes),
    /// and no name with "_" (see `HTTPRequestHead.forwardingHead`).
    static func hopByHopProblems(_ request: UpstreamLog.Request, label: String) -> [String] {
        var problems: [String] = []
        for field in request.headers {
            let name = field[0].lowercased()
            if name == "transfer-encoding" && field[1] == "chunked" { continue }
            if hopByHop.contains(name) || name.hasPrefix("proxy-") {
                problems.append("\(label): hop-by-hop field \(field[0]): \(field[1]) forwarded")
            }
            if name.contains("_") { problems.append("\(label): field \(field[0]) with an underscore forwarded") }
        }
        if request.values("Host").count != 1 || request.headers.first?[0].lowercased() != "host" {
            problems.append("\(label): Host is not the first and only Host field: \(request.headers.map { $0[0] })")
        }
        return problems
    }

    /// The forwarded request against `expect`, as a proxy forwards it:
    /// - method and body as received (the body de-chunked, `trailers` forwarded);
    /// - an absolute-form target in origin-form, with Host from its authority (RFC 9112 §3.2.2);
    ///   otherwise the target as received and the received Host, or the upstream's authority
    ///   when the request had none (HTTP/1.0);
    /// - every end-to-end field, in order, with its value: everything except Host, framing,
    ///   hop-by-hop fields and those Connection names, `Expect` (the gateway answers
    ///   100-continue itself), names with "_", the forwarding fields the gateway replaces, and
    ///   client identity fields (removed, so none may arrive);
    /// - nothing else but the fields the gateway writes (`gatewayFields`).
    static func expectationProblems(
        _ expect: RequestVector.Expectation,
        _ request: UpstreamLog.Request,
        upstreamPort: Int,
        label: String
    ) -> [String] {
        var problems: [String] = []
        if request.method != expect.method { problems.append("\(label): method \(request.method)") }
        var target = expect.target
        var host = expect.headers.first { $0[0].lowercased() == "host" }?[1] ?? "127.0.0.1:\(upstreamPort)"
        if let absolute = originForm(expect.target) {
            (host, target) = absolute
        }
        if request.target != target { problems.append("\(label): target \(request.target), expected \(target)") }
        if request.values("Host") != [host] { problems.append("\(label): Host \(request.values("Host")), expected \(host)") }
        if let forwardedHost = request.values("X-Forwarded-Host").first, forwardedHost != host {
            problems.append("\(label): X-Forwarded-Host \(forwardedHost), expected \(host)")
        }

        let named = Set(
            expect.headers.filter { $0[0].lowercased() == "connection" }
                .flatMap { $0[1].lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        )
        func isEndToEnd(_ name: String) -> Bool {
            let lower = name.lowercased()
            return !hopByHop.contains(lower) && !lower.hasPrefix("proxy-") && !named.contains(lower)
                && !gatewayFields.contains(lower) && lower != "expect" && !lower.contains("_")
                && !identityFields.contains(lower)
        }
        for field in request.headers where identityFields.contains(field[0].lowercased()) {
            problems.append("\(label): client identity field \(field[0]) forwarded")
        }
        let endToEnd = expect.headers.filter { isEndToEnd($0[0]) }
        let forwarded = request.headers.filter { !gatewayFields.contains($0[0].lowercased()) }
        if forwarded != endToEnd { problems.append("\(label): fields \(forwarded), expected \(endToEnd)") }

        let body = expect.body
        if request.body != body || request.bodyLength != latin1Bytes(body).count {
            problems.append("\(label): body \(String(reflecting: String(request.body.prefix(80)))) (\(request.bodyLength) bytes), expected \(String(reflecting: body))")
        }
        if (request.trailers ?? []) != (expect.trailers ?? []) {
            problems.append("\(label): trailers \(request.trailers ?? []), expected \(expect.trailers ?? [])")
        }
        return problems
    }

    /// `(authority, origin-form target)` of an `http://` absolute-form target, nil otherwise.
    static func originForm(_ target: String) -> (String, String)? {
        guard target.hasPrefix("http://") else { return nil }
        let rest = target.dropFirst("http://".count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = String(rest[..<authorityEnd])
        var path = String(rest[authorityEnd...])
        if path.isEmpty { path = "/" } else if path.hasPrefix("?") { path = "/" + path }
        return (authority, path)
    }

    /// The case's `forwarding` constraints. Where `requiredHost` is given, no forwarding field
    /// may carry another host either: the upstream must not see the Host the gateway ignored.
    static func constraintProblems(_ forwarding: RequestVector.Forwarding, _ request: UpstreamLog.Request) -> [String] {
        var problems: [String] = []
        for name in forwarding.mustNotContainHeaders ?? [] where !request.values(name).isEmpty {
            problems.append("forwarded \(name): \(request.values(name))")
        }
        for field in forwarding.mustContainHeaders ?? [] where !request.values(field[0]).contains(field[1]) {
            problems.append("\(field[0]): \(field[1]) not forwarded (got \(request.values(field[0])))")
        }
        if let host = forwarding.requiredHost {
            if request.values("Host") != [host] { problems.append("Host \(request.values("Host")), required \(host)") }
            for value in request.values("X-Forwarded-Host") where value != host {
                problems.append("X-Forwarded-Host \(value) carries the ignored Host (required \(host))")
            }
            for value in request.values("Forwarded") where value.contains("host=") && !value.contains("host=\(host)") {
                problems.append("Forwarded \(value) carries the ignored Host (required \(host))")
            }
        }
        return problems
    }
}

/// Starts one recording upstream and one gateway with the vectors' limits around the whole
/// suite, and hands them to its tests through `current`.
struct VectorGateway: SuiteTrait, TestScoping {
    @TaskLocal static var current: RecordingUpstreamFixture?

    static let environment = [
        "MAX_REQUEST_LINE_BYTES": "8192",
        "MAX_HEADER_BYTES": "65536",
        "MAX_HEADER_COUNT": "100",
        "MAX_BODY_BYTES": "10485760",
        "EVENT_LOOPS": "1",
        // The census expects the warm-up's pooled upstream connection: it must not idle out
        // while a loaded machine runs the suite slowly.
        "UPSTREAM_IDLE_TIMEOUT": "3600",
    ]

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let fixture = try await RecordingUpstreamFixture.start(Self.environment)
        defer { fixture.stop() }
        let gateway = ChildProcessProbe(pid: fixture.gateway.pid)
        // The census counts the gateway's steady state: after its start-up work, and after a
        // first request, which leaves the one pooled upstream connection the cases reuse.
        #expect(await fixture.gateway.settled(), "the gateway's start-up did not finish: \(fixture.gateway.logs.suffix(2000))")
        let (port, upstreamPort) = (fixture.port, fixture.upstreamPort)
        _ = try await blocking { try RawHTTPClient.get(port: port, "/__warm-up").status }
        // The census starts once the gateway has noticed the warm-up client's close.
        let atStart = await gateway.censusWithoutClients(listeningPort: port, upstreamPort: upstreamPort)
        #expect(atStart.clients.isEmpty, "the warm-up connection is still open: \(atStart)")
        #expect(atStart.upstream.count == 1, "the warm-up leaves one pooled upstream connection: \(atStart)")
        try await Self.$current.withValue(fixture) { try await function() }
        // Every client connection of every case is closed (refused ones by the gateway), and
        // nothing else is left open: the counts settle back to the start's, which can take a
        // while on a loaded machine, so this polls to a generous deadline. A real leak stays
        // and fails, listing the descriptors. Pooled upstream connections may stay: a case can
        // start before the previous one's connection is back in the pool, so more than one may
        // be idle at the end, up to the pool's cap (64 per loop).
        let atEnd = await gateway.censusWithoutClients(listeningPort: port, upstreamPort: upstreamPort) {
            $0.others.count <= atStart.others.count
        }
        #expect(atEnd.clients.isEmpty, "client connections left open after the cases: \(atEnd)")
        #expect(
            atEnd.others.count <= atStart.others.count,
            "the gateway holds \(atEnd.others.count) descriptors other than connections after the cases, \(atStart.others.count) before; before: \(atStart); after: \(atEnd)")
        #expect(atEnd.upstream.count <= 64, "the gateway holds \(atEnd.upstream.count) upstream connections after the cases")
    }
}
