import AppNativeCore
import AppNativeDevPeers
import AppNativeGateway
import AppNativeTesting
import Foundation
import Testing

/// The operators' view checked with Prometheus' own tool: a live gateway's `/metrics` passes
/// `promtool check metrics`; deploy/prometheus/alerts.yml passes `promtool check rules` and its
/// unit tests (`promtool test rules`); the Kubernetes `PrometheusRule` carries the same groups; the
/// Grafana dashboard's queries parse and name only metrics of `MetricCatalogue`; and every metric
/// name the docs, rules and benchmarks use exists.
@Suite("Prometheus tooling", .timeLimit(.minutes(5)))
struct PrometheusToolTests {
    static let root = ProcessRunner.repositoryRoot()
    static let promtool = "/usr/bin/promtool"

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }

    /// Whether `name` is a series name the catalogue produces (a histogram's `_bucket`, `_sum`
    /// and `_count` included).
    static func isExposed(_ name: String) -> Bool {
        if MetricCatalogue.descriptor(named: name) != nil { return true }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            if case .histogram? = MetricCatalogue.descriptor(named: String(name.dropLast(suffix.count)))?.kind { return true }
        }
        return false
    }

    /// The `appnative_…` metric identifiers in `text`: PromQL expressions, Markdown, shell. Other
    /// identifiers in an expression (functions, keywords, label names) never start with the prefix.
    static func metricNames(in text: String) -> Set<String> {
        var names = Set<String>()
        let bytes = Array(text.utf8)
        let prefix = Array("appnative_".utf8)
        let isNameByte = { (byte: UInt8) in (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F }
        var index = 0
        while index + prefix.count <= bytes.count {
            let startsName = index == 0 || !(isNameByte(bytes[index - 1]) || (bytes[index - 1] >= 0x41 && bytes[index - 1] <= 0x5A))
            guard startsName, Array(bytes[index..<index + prefix.count]) == prefix else {
                index += 1
                continue
            }
            var end = index + prefix.count
            while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
            names.insert(String(decoding: bytes[index..<end], as: UTF8.self))
            index = end
        }
        return names
    }

    @Test("a live gateway's /metrics passes promtool check metrics, and names only catalogued metrics")
    func liveMetrics() async throws {
        let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": "/echo/public"])
        defer { fixture.stop() }
        let port = fixture.port
        let token = try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970)
        // Traffic that creates labelled series: answered, refused without and with a bad credential.
        let statuses = try await blocking {
            [
                try RawHTTPClient.get(port: port, "/echo/public/a").status,
                try RawHTTPClient.get(port: port, "/echo/private").status,
                try RawHTTPClient.get(port: port, "/echo/private", headers: ["Authorization": "Bearer \(token)"]).status,
                try RawHTTPClient.get(port: port, "/echo/private", headers: ["Authorization": "Bearer not.a.token"]).status,
            ]
        }
        #expect(statuses == [200, 401, 200, 401])
        let adminPort = fixture.gateway.adminPort
        var metrics = ""
        let counted = await eventually(pollingEvery: .milliseconds(100)) {
            metrics = (try? await blocking { try RawHTTPClient.get(port: adminPort, "/metrics").bodyText }) ?? ""
            return metrics.contains(#"appnative_auth_outcomes_total{reason="token",result="authenticated"} 1"#)
                && metrics.contains(#"appnative_http_requests_total{status="4xx"} 2"#)
        }
        #expect(counted, "\(metrics)")
        #expect(metrics.contains("appnative_build_info{version=\"\(GatewayVersion.current)\"} 1"), "\(metrics)")

        let check = try await ProcessRunner.run(Self.promtool, ["check", "metrics"], input: metrics)
        #expect(check.status == 0, "promtool check metrics:\n\(check.stdout)\(check.stderr)")
        #expect(check.stdout.isEmpty && check.stderr.isEmpty, "promtool reported problems:\n\(check.stdout)\(check.stderr)")

        let families = metrics.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        let unknown = families.filter { MetricCatalogue.descriptor(named: String($0)) == nil }
        #expect(unknown.isEmpty, "served but not in MetricCatalogue: \(unknown)")
        for line in metrics.split(separator: "\n") where !line.hasPrefix("#") {
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            #expect(Self.isExposed(name), "\(line)")
        }
    }

    @Test("deploy/prometheus/alerts.yml passes promtool check rules and its unit tests")
    func alertRules() async throws {
        let directory = Self.root + "/deploy/prometheus"
        let check = try await ProcessRunner.run(Self.promtool, ["check", "rules", directory + "/alerts.yml"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let test = try await ProcessRunner.run(Self.promtool, ["test", "rules", directory + "/alerts.test.yml"])
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
        #expect(test.stdout.contains("SUCCESS"), "\(test.stdout)")
    }

    @Test("every alert links its runbook: a section of docs/operations.md named after it")
    func runbooks() throws {
        let rules = try Self.read("deploy/prometheus/alerts.yml")
        let operations = try Self.read("docs/operations.md")
        let base = "https://github.com/example/app-native-gateway/blob/main/docs/operations.md#"
        var alert: String?
        var alerts = Set<String>()
        var linked = Set<String>()
        for line in rules.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("- alert: ") {
                alert = String(line.dropFirst("- alert: ".count))
                alerts.insert(alert ?? "")
            } else if line.hasPrefix("runbook_url: "), let alert {
                let url = String(line.dropFirst("runbook_url: ".count))
                #expect(url == base + alert.lowercased(), "\(alert): \(url)")
                linked.insert(alert)
            }
        }
        #expect(alerts.count >= 10)
        #expect(alerts == linked, "alerts without a runbook_url: \(alerts.subtracting(linked).sorted())")
        for alert in alerts {
            #expect(operations.contains("\n### \(alert)\n"), "docs/operations.md has no section \"### \(alert)\"")
        }
    }

    @Test("the Kubernetes PrometheusRule carries alerts.yml's groups (scripts/render-prometheusrule.sh)")
    func prometheusRule() throws {
        let rules = try Self.read("deploy/prometheus/alerts.yml")
        let manifest = try Self.read("deploy/kubernetes/monitoring/prometheusrule.yaml")
        let parts = manifest.components(separatedBy: "\nspec:\n")
        try #require(parts.count == 2, "no `spec:` line")
        #expect(parts[0].contains("\nkind: PrometheusRule\n") && parts[0].contains("apiVersion: monitoring.coreos.com/v1"))
        let expected = rules.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("#") }
            .map { $0.isEmpty ? "" : "  " + $0 }
            .joined(separator: "\n")
        #expect(parts[1] == expected, "run scripts/render-prometheusrule.sh")
    }

    @Test("the Grafana dashboard's queries parse and use only catalogued metrics")
    func dashboard() async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.root + "/deploy/grafana/app-native-gateway.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var expressions: [String] = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let expression = object["expr"] as? String { expressions.append(expression) }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        collect(dashboard["panels"] ?? [])
        #expect(expressions.count >= 20)
        for expression in expressions {
            let names = Self.metricNames(in: expression)
            #expect(!names.isEmpty, "queries no gateway metric: \(expression)")
            for name in names {
                #expect(Self.isExposed(name), "\(name) is not in MetricCatalogue: \(expression)")
            }
        }
        // Each query as a recording rule, Grafana's variables filled in: promtool parses it.
        var rules = "groups:\n  - name: dashboard\n    rules:\n"
        for (index, expression) in expressions.enumerated() {
            let filled = expression.replacingOccurrences(of: "$__rate_interval", with: "5m").replacingOccurrences(of: "$instance", with: ".*")
            let quoted = String(data: try JSONSerialization.data(withJSONObject: [filled], options: [.withoutEscapingSlashes]), encoding: .utf8)?.dropFirst().dropLast() ?? ""
            rules += "      - record: dashboard:query\(index)\n        expr: \(quoted)\n"
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-\(UUID().uuidString).yml")
        try rules.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = try await ProcessRunner.run(Self.promtool, ["check", "rules", file.path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    @Test("every catalogued metric is created by the code, and the code creates metrics only from the catalogue")
    func catalogueUsed() throws {
        var referenced = Set<String>()
        let sources = Self.root + "/Sources"
        let files = FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        for file in files where !file.hasSuffix("MetricCatalogue.swift") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for piece in text.components(separatedBy: "MetricCatalogue.").dropFirst() {
                let name = String(piece.prefix { $0.isLetter || $0.isNumber })
                if name != "all" && name != "descriptor" { referenced.insert(name) }
            }
        }
        #expect(referenced.count == MetricCatalogue.all.count, "Sources use \(referenced.sorted())")
    }

    @Test("every metric name in docs/, the rules and the benchmarks exists")
    func namesInFiles() throws {
        var files = ["deploy/prometheus/alerts.yml", "deploy/prometheus/alerts.test.yml", "README.md"]
        for directory in ["docs", "Benchmarks"] {
            let entries = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/" + directory)
            // CHANGELOG.md (not scanned) lists the names metrics had before.
            files += entries.filter { $0.hasSuffix(".md") || $0.hasSuffix(".sh") }.map { directory + "/" + $0 }
        }
        let families = ["http", "upstream", "jwks", "auth", "apns", "graph", "native", "push_api", "config", "signin", "authorize", "tls", "build", "tracing"]
        for file in files {
            for name in Self.metricNames(in: try Self.read(file)) where families.contains(where: { name.hasPrefix("appnative_\($0)_") }) {
                #expect(Self.isExposed(name), "\(file) names \(name), which is not in MetricCatalogue")
            }
        }
    }
}
