import AppNativeHTTP

// Unsafe (harness): the input is libFuzzer's buffer, valid for the `run` call and read within its
// count; buffers handed to the parsers are borrowed for their call and copied before they are kept.

/// The upstream response parser, as `UpstreamConnection` drives it, and what the proxy does with
/// each head it yields (STYLE.md §6).
///
/// Input: byte 0 chooses a split point in the rest (`rest.count * byte / 255`); byte 1 chooses
/// the request method the response answers (`byte % 3`: GET, HEAD, CONNECT); the rest is the
/// upstream's bytes. They are fed once whole and once as two chunks, each chunk in its own
/// buffer, calling `parse` until a call consumes everything and returns no event (or the parser
/// has switched protocols), then `finish()` as when the upstream closes. Both feedings must give
/// the same messages, the same error (always status 502) and the same switch of protocols. The
/// parser must keep its calling contract (bounded consumption, progress, body ranges inside the
/// consumed bytes, event order, statuses 100–599). Every head the proxy relays (interim heads
/// other than 100, a 101 that accepts a WebSocket, final heads) goes through its response path
/// (hop-by-hop removal, `Connection: Upgrade` for 101, HTTP/1.1) and `HTTPSerializer`, and must
/// parse back to the same status and fields; body chunks and trailers are framed as the server
/// frames them. A trap anywhere in that path is the crash libFuzzer reports.
enum HTTPResponseHarness {
    /// Small limits, so mutations reach every limit path.
    static let limits = HTTPLimits(maxRequestLineBytes: 256, maxHeaderBytes: 1024, maxHeaderCount: 16, maxBodyBytes: 4096)
    static let methods = ["GET", "HEAD", "CONNECT"]

    struct Message: Equatable {
        var head: HTTPResponseHead
        var framing: HTTPBodyFraming
        var body: [UInt8] = []
        var trailers: HTTPHeaders?
        var isComplete = false
    }

    struct Outcome: Equatable {
        var messages: [Message] = []
        var error: HTTPParseError?
        var errorStatus: Int?
        var hasSwitchedProtocols = false
    }

    static func run(_ input: UnsafeRawBufferPointer) {
        guard input.count >= 2 else { return }
        let split = unsafe (input.count - 2) * Int(input[0]) / 255
        let method = unsafe methods[Int(input[1]) % methods.count]
        let bytes = unsafe Array(input.dropFirst(2))
        let whole = feed([bytes], method: method)
        let halves = feed([Array(bytes[..<split]), Array(bytes[split...])], method: method)
        check(
            whole == halves,
            "split at \(split) of \(bytes.count) changes the verdict: whole \(describe(whole)), split \(describe(halves))"
        )
        if let status = whole.errorStatus { check(status == 502, "upstream parse error with status \(status)") }
        for message in whole.messages { forward(message) }
    }

    static func feed(_ chunks: [[UInt8]], method: String) -> Outcome {
        var parser = HTTPResponseParser(limits: limits)
        parser.expectResponse(to: method)
        var outcome = Outcome()
        func record(_ event: HTTPParserEvent<HTTPResponseHead>?, _ rest: UnsafeRawBufferPointer, consumed: Int) {
            switch event {
            case .head(let head, let framing)?:
                check(outcome.messages.last?.isComplete ?? true, "head before the previous message ended")
                check((100...599).contains(head.status), "status \(head.status) outside 100...599")
                outcome.messages.append(Message(head: head, framing: framing))
            case .body(let range)?:
                check(range.lowerBound >= 0 && range.upperBound <= consumed && !range.isEmpty, "body range \(range) of \(consumed)")
                check(outcome.messages.last.map { !$0.isComplete } ?? false, "body outside a message")
                unsafe outcome.messages[outcome.messages.count - 1].body += rest[range]
            case .end(let trailers)?:
                check(outcome.messages.last.map { !$0.isComplete } ?? false, "end outside a message")
                outcome.messages[outcome.messages.count - 1].trailers = trailers
                outcome.messages[outcome.messages.count - 1].isComplete = true
            case nil:
                break
            }
        }
        var failed = false
        for chunk in chunks where !failed && !parser.hasSwitchedProtocols {
            failed = unsafe chunk.withUnsafeBytes { buffer -> Bool in
                var position = 0
                var calls = 0
                while true {
                    calls += 1
                    check(calls <= buffer.count + 16, "parser loops without progress at \(position) of \(buffer.count)")
                    let rest = unsafe UnsafeRawBufferPointer(rebasing: buffer[position...])
                    let step: (consumed: Int, event: HTTPParserEvent<HTTPResponseHead>?)
                    do throws(HTTPParseError) {
                        step = unsafe try parser.parse(rest)
                    } catch {
                        outcome.error = error
                        outcome.errorStatus = error.status
                        return true
                    }
                    check((0...rest.count).contains(step.consumed), "consumed \(step.consumed) of \(rest.count)")
                    unsafe record(step.event, rest, consumed: step.consumed)
                    position += step.consumed
                    if step.event == nil {
                        if parser.hasSwitchedProtocols { return false }
                        check(position == buffer.count, "no event with \(buffer.count - position) bytes unconsumed")
                        return false
                    }
                }
            }
        }
        if !failed {
            do throws(HTTPParseError) {
                let empty = unsafe UnsafeRawBufferPointer(start: nil, count: 0)
                unsafe record(try parser.finish(), empty, consumed: 0)
            } catch {
                outcome.error = error
                outcome.errorStatus = error.status
            }
        }
        outcome.hasSwitchedProtocols = parser.hasSwitchedProtocols
        return outcome
    }

    /// What `ProxyExchange` and the server do with a response head, body and trailers.
    static func forward(_ message: Message) {
        var head = message.head
        let isUpgrade = head.status == 101
        if (100..<200).contains(head.status) && !isUpgrade {
            // 100 is the proxy's own to send; other interim heads are relayed without hop-by-hop fields.
            guard head.status != 100 else { return }
            _ = HopByHopHeaders.remove(from: &head.headers)
            head.version = .http1_1
            var wire: [UInt8] = []
            HTTPSerializer.appendResponseHead(head, to: &wire)
            reparse(wire, expecting: head)
            return
        }
        // A 101 that is not a WebSocket acceptance is answered 502; nothing of it is written.
        if isUpgrade && !WebSocketHandshake.isAcceptance(head) { return }
        _ = HopByHopHeaders.remove(from: &head.headers, keepingWebSocketUpgrade: isUpgrade)
        if isUpgrade { head.headers.replaceOrAdd(name: "Connection", value: "Upgrade") }
        head.version = .http1_1
        var wire: [UInt8] = []
        HTTPSerializer.appendResponseHead(head, to: &wire)
        reparse(wire, expecting: head)
        var framed: [UInt8] = []
        if !message.body.isEmpty {
            HTTPSerializer.appendChunkHeader(size: message.body.count, to: &framed)
            framed += message.body
            HTTPSerializer.appendChunkEnd(to: &framed)
        }
        HTTPSerializer.appendLastChunk(trailers: message.trailers, to: &framed)
    }

    /// The serialised head must read back as the same status and fields: nothing the upstream
    /// sent can end a line or add a field on the way to the client.
    static func reparse(_ wire: [UInt8], expecting head: HTTPResponseHead) {
        var parser = HTTPResponseParser(limits: HTTPLimits(maxRequestLineBytes: 4096, maxHeaderBytes: 1 << 20, maxHeaderCount: 1024, maxBodyBytes: 4096))
        parser.expectResponse(to: "HEAD")
        unsafe wire.withUnsafeBytes { buffer in
            do throws(HTTPParseError) {
                let step = unsafe try parser.parse(buffer)
                guard case .head(let parsed, _)? = step.event else { failCheck("serialised head did not parse to a head: \(wire.count) bytes") }
                check(parsed.status == head.status, "status \(head.status) read back as \(parsed.status)")
                check(parsed.headers == head.headers, "fields changed on the way out:\n\(head.headers)\n---\n\(parsed.headers)")
            } catch {
                failCheck("serialised head does not parse: \(error) \(String(decoding: wire, as: UTF8.self).debugDescription)")
            }
        }
    }

    static func describe(_ outcome: Outcome) -> String {
        let messages = outcome.messages.map { "\($0.head.status) \($0.framing) body \($0.body.count) complete \($0.isComplete)" }
        return "\(messages) error \(outcome.error.map { "\($0) (\($0.status))" } ?? "none") switched \(outcome.hasSwitchedProtocols)"
    }
}

/// `precondition` that also reports its message in optimized builds (which drop it), so a crash
/// found by libFuzzer explains itself in the log.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

func failCheck(_ message: @autoclosure () -> String) -> Never {
    fatalError(message())
}
