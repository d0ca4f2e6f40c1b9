import AppNativeClient
import AppNativeCore
import AppNativeGateway
import AppNativeHTTP
import Testing

/// The hook's answer is a peer's bytes: its `X-Authz-*` fields become request fields sent
/// upstream, so a name that is not a token or a value with a control must be dropped, not
/// reach `HTTPHeaders.add` (which stops the process on such a name).
@Suite("Authorization hook answers")
struct AuthorizationHookTests {
    /// Names a hook could send that are not tokens: SP, HTAB, a separator, DQUOTE, DEL, Latin-1
    /// and non-Latin-1 letters (the client reads names as Latin-1), and an empty suffix's cousin.
    static let invalidNames = [
        "X-Authz-a b", "X-Authz-a\tb", "X-Authz-(", "X-Authz-/", "X-Authz-\"", "X-Authz-\u{7F}", "X-Authz-\u{E9}",
        "X-Authz-\u{1F600}", "X-Authz-a:b", "X-Authz-a\u{0}",
    ]
    static let invalidValues = ["a\rb", "a\nX-Injected: 1", "a\u{0}", "\u{1B}[31m", "a\u{7F}"]

    @Test("2xx passes valid X-Authz-* fields, drops invalid ones with a reason, ignores other fields")
    func allowFiltersFields() {
        var fields = [HTTPHeaderField(name: "X-Authz-User-Id", value: "backend-42"), HTTPHeaderField(name: "X-Other", value: "a b")]
        fields += Self.invalidNames.map { HTTPHeaderField(name: $0, value: "1") }
        fields += Self.invalidValues.map { HTTPHeaderField(name: "X-Authz-Roles", value: $0) }
        fields.append(HTTPHeaderField(name: "x-authz-roles", value: "admin,\treader"))
        let answer = AuthorizationHook.interpret(status: 204, headers: fields)
        #expect(answer.decision == .allow(headers: [fields[0], fields[fields.count - 1]]))
        #expect(answer.dropped == Array(repeating: .invalidName, count: Self.invalidNames.count)
            + Array(repeating: .invalidValue, count: Self.invalidValues.count))
    }

    @Test("403 denies, everything else is unavailable, whatever the fields", arguments: [100, 199, 300, 401, 403, 404, 500, 503, 999, -1, Int.max])
    func otherStatuses(status: Int) {
        let answer = AuthorizationHook.interpret(status: status, headers: [HTTPHeaderField(name: "X-Authz-a b", value: "1")])
        #expect(answer == AuthorizationHook.Answer(decision: status == 403 ? .deny : .unavailable, dropped: []))
    }

    @Test("decide drops, counts and logs (without name or value) the invalid fields; the passed ones build HTTPHeaders")
    func decideCountsAndLogs() async throws {
        let client = FixedAnswer(response: HTTPResponse(status: 200, headers: [
            HTTPHeaderField(name: "X-Authz-a b", value: "1"),
            HTTPHeaderField(name: "X-Authz-Token", value: "secret\r\nX-Injected: 1"),
            HTTPHeaderField(name: "X-Authz-User-Id", value: "backend-42"),
        ]))
        let metrics = MetricsRegistry()
        let sink = RecordingSink()
        let hook = AuthorizationHook(url: "http://127.0.0.1:1/authz", allowTTL: .seconds(60), denyTTL: .seconds(60), client: client,
                                     metrics: metrics, logger: Logger(sink: sink, minimumLevel: .debug))
        let decision = await hook.decide(for: "object", identityHeaders: [])
        guard case .allow(let fields) = decision else {
            Issue.record("expected allow, got \(decision)")
            return
        }
        var headers = HTTPHeaders()
        for field in fields { headers.add(name: field.name, value: field.value) }
        #expect(headers == ["X-Authz-User-Id": "backend-42"])
        #expect(metrics.counter(MetricCatalogue.authorizeDroppedHeaders, labels: ["reason": "invalid_name"]).current == 1)
        #expect(metrics.counter(MetricCatalogue.authorizeDroppedHeaders, labels: ["reason": "invalid_value"]).current == 1)
        let records = sink.records.withLock { $0 }
        #expect(records.count == 2)
        for record in records {
            let text = record.message + record.metadata.map { $0.key + $0.value }.joined()
            #expect(!text.contains("secret") && !text.contains("a b") && !text.contains("Token"), "\(text)")
        }
    }
}

private struct FixedAnswer: HTTPFetching {
    let response: HTTPResponse
    func send(_ request: HTTPRequest) async throws(ClientError) -> HTTPResponse { response }
}

private final class RecordingSink: LogSink {
    let records = Locked<[LogRecord]>([])
    func write(_ record: LogRecord) { records.withLock { $0.append(record) } }
}
