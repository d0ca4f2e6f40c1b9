import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeHTTP
import AppNativeJSON
import AppNativeServer

/// An in-process loopback token endpoint that misbehaves on purpose: the request path picks the
/// answer. It records every request body it reads.
final class ScriptedTokenEndpoint: Sendable {
    private let server: HTTPServer
    private let bodies = Locked([[UInt8]]())

    /// The ID token `/good` answers with (a placeholder: the client does not verify it).
    static let idToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"

    init() throws {
        let bodies = bodies
        server = try HTTPServer(
            configuration: ServerConfiguration(listenAddress: try SocketAddress(parsing: "127.0.0.1:0"), eventLoops: 1),
            metrics: MetricsRegistry()
        ) { _ in Handler(bodies: bodies) }
        server.start()
    }

    func url(_ path: String) -> String { "http://\(server.boundAddress)\(path)" }

    var receivedBodies: [String] { bodies.withLock { $0.map { String(decoding: $0, as: UTF8.self) } } }

    func stop() { server.shutdown(gracePeriod: .milliseconds(100)) }

    private final class Handler: HTTPExchangeHandler {
        let bodies: Locked<[[UInt8]]>

        init(bodies: Locked<[[UInt8]]>) {
            self.bodies = bodies
        }

        func serve(_ exchange: HTTPExchange) {
            var body: [UInt8] = []
            exchange.onBodyChunk = { body.append(contentsOf: $0) }
            exchange.onBodyEnd = { [self] _ in
                bodies.withLock { $0.append(body) }
                answer(exchange)
            }
            exchange.readBody()
        }

        private func answer(_ exchange: HTTPExchange) {
            let json: HTTPHeaders = ["Content-Type": "application/json"]
            switch exchange.request.target {
            case "/good":
                respond(exchange, 200, json, #"{"token_type":"Bearer","access_token":"at","id_token":"\#(ScriptedTokenEndpoint.idToken)"}"#)
            case "/error":
                respond(exchange, 400, json, #"{"error":"invalid_grant","error_description":"AADSTS70008: expired for zoe@example.com"}"#)
            case "/error-not-a-token":
                respond(exchange, 400, json, #"{"error":"<script>alert(1)</script>"}"#)
            case "/server-error":
                respond(exchange, 503, ["Content-Type": "text/html"], "<h1>down</h1>")
            case "/not-json":
                respond(exchange, 200, ["Content-Type": "text/html"], "<html>id_token</html>")
            case "/no-id-token":
                respond(exchange, 200, json, #"{"access_token":"at","token_type":"Bearer"}"#)
            case "/id-token-not-string":
                respond(exchange, 200, json, #"{"id_token":42}"#)
            case "/huge":
                respond(exchange, 200, json, #"{"id_token":""# + String(repeating: "a", count: 300 * 1024) + #""}"#)
            case "/redirect":
                respond(exchange, 302, ["Location": "https://evil.example/token"], "")
            case "/hang":
                break  // never answers: the client's timeout must end the exchange
            default:
                respond(exchange, 404, json, "{}")
            }
        }

        private func respond(_ exchange: HTTPExchange, _ status: Int, _ headers: HTTPHeaders, _ body: String) {
            exchange.respond(status: status, headers: headers, body: Array(body.utf8))
        }

        func exchangeDidEnd(_ exchange: HTTPExchange) {}
    }
}

