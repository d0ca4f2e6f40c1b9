import AppNativeHTTP
public import AppNativeServer

/// The built-in demo upstream of `make run`: shows the identity it received from the gateway.
/// DEV ONLY: it trusts the identity headers because only the gateway can reach it (loopback).
public final class DemoUpstreamHandler: HTTPExchangeHandler {
    public init() {}

    public func serve(_ exchange: HTTPExchange) {
        var identity: [String] = []
        for field in exchange.request.headers where field.name.lowercased().hasPrefix("x-appnative-") {
            identity.append("\(JSONErrorBody.quotedString(field.name)):\(JSONErrorBody.quotedString(field.value))")
        }
        let body = "{\"message\":\"hello from the demo upstream\",\"method\":\(JSONErrorBody.quotedString(exchange.request.method)),"
            + "\"path\":\(JSONErrorBody.quotedString(exchange.request.target)),\"identity\":{\(identity.joined(separator: ","))}}\n"
        if exchange.hasRequestBody {
            exchange.onBodyEnd = { _ in exchange.respond(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8)) }
            exchange.readBody()
        } else {
            exchange.respond(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
        }
    }

    public func exchangeDidEnd(_ exchange: HTTPExchange) {}
}

@available(*, unavailable, message: "loop-owned")
extension DemoUpstreamHandler: Sendable {}
