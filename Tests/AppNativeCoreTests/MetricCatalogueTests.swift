import AppNativeCore
import Testing

/// The catalogue is the only source of metric names, so the conventions are checked here, once
/// for every metric, rather than by the scrape that would otherwise find a wrong name.
@Suite("Metric catalogue")
struct MetricCatalogueTests {
    @Test("every metric keeps Prometheus' naming conventions")
    func conventions() {
        let problems = MetricCatalogue.all.flatMap(\.conventionProblems)
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("names are unique")
    func unique() {
        let names = MetricCatalogue.all.map(\.name)
        #expect(Set(names).count == names.count)
    }

    @Test("the conventions catch the usual mistakes")
    func catchesMistakes() {
        #expect(!MetricDescriptor.counter("appnative_requests", help: "x").conventionProblems.isEmpty)
        #expect(!MetricDescriptor.gauge("appnative_open_total", help: "x").conventionProblems.isEmpty)
        #expect(!MetricDescriptor.histogram("appnative_latency_milliseconds", upperBounds: [1], help: "x").conventionProblems.isEmpty)
        #expect(!MetricDescriptor.counter("requests_total", help: "x").conventionProblems.isEmpty)
        #expect(!MetricDescriptor.counter("appnative_Requests_total", help: "x").conventionProblems.isEmpty)
        #expect(!MetricDescriptor.counter("appnative_build_info", help: "x").conventionProblems.isEmpty)
        #expect(!MetricDescriptor.histogram("appnative_size_bytes", upperBounds: [2, 1], help: "x").conventionProblems.isEmpty)
        #expect(!MetricDescriptor.counter("appnative_requests_total", help: "x", labels: [.init("le")]).conventionProblems.isEmpty)
        #expect(!MetricDescriptor.counter("appnative_requests_total", help: "").conventionProblems.isEmpty)
        #expect(MetricDescriptor.histogram("appnative_body_size_bytes", upperBounds: [1, 2], help: "x").conventionProblems.isEmpty)
    }

    @Test("the exposition names each family once, with its help and type, in catalogue form")
    func exposition() {
        let registry = MetricsRegistry()
        registry.gauge(MetricCatalogue.buildInfo, labels: ["version": "1.2.3"]).set(1)
        registry.counter(MetricCatalogue.httpRequests, labels: ["status": "2xx"]).increment()
        registry.counter(MetricCatalogue.httpRequests, labels: ["status": "5xx"]).increment()
        let text = registry.renderPrometheus()
        #expect(text.contains("# HELP appnative_build_info \(MetricCatalogue.buildInfo.help)\n# TYPE appnative_build_info gauge\nappnative_build_info{version=\"1.2.3\"} 1\n"))
        #expect(text.split(separator: "\n").filter { $0 == "# TYPE appnative_http_requests_total counter" }.count == 1)
        #expect(text.contains(#"appnative_http_requests_total{status="5xx"} 1"#))
    }
}
