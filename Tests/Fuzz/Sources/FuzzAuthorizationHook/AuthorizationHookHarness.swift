import AppNativeClient
import AppNativeGateway
import AppNativeHTTP

// Unsafe (harness): the input is libFuzzer's buffer, valid for the `run` call and read within its
// count; buffers handed to the parsers are borrowed for their call and copied before they are kept.

/// The authorization hook's answer, from the header lines the client collects to the request
/// fields the gateway sends upstream (STYLE.md §6).
///
/// Input: bytes 0–1 are the status (big-endian, modulo 1000, as libcurl reports a three-digit
/// code); the rest is the response's header section, cut into lines after each LF and handed to
/// `HTTPHeaderField.collect(line:into:)` one at a time, as libcurl hands them to the client.
/// `AuthorizationHook.interpret` must map 2xx to allow, 403 to deny and anything else to
/// unavailable; every passed field carries the `X-Authz-` prefix, and passed plus dropped
/// accounts for every prefixed field. The passed fields are added to `HTTPHeaders` with the
/// trapping `add(name:value:)` (a name `interpret` lets through that is not a token is the
/// crash libFuzzer reports), written into a request head and parsed back: they must come out
/// unchanged, so nothing a hook sends can split a line or add a field upstream.
enum AuthorizationHookHarness {
    static func run(_ input: UnsafeRawBufferPointer) {
        guard input.count >= 2 else { return }
        let status = unsafe (Int(input[0]) << 8 | Int(input[1])) % 1000
        var fields: [HTTPHeaderField] = []
        var start = 2
        while start < input.count {
            var end = start
            while unsafe end < input.count && input[end] != UInt8(ascii: "\n") { end += 1 }
            end = min(end + 1, input.count)
            unsafe HTTPHeaderField.collect(line: UnsafeRawBufferPointer(rebasing: input[start..<end]), into: &fields)
            start = end
        }
        let answer = AuthorizationHook.interpret(status: status, headers: fields)
        let prefixed = fields.filter { $0.name.lowercased().hasPrefix(AuthorizationHook.passedHeaderPrefix) }
        switch answer.decision {
        case .allow(let passed):
            check((200..<300).contains(status), "status \(status) allowed")
            check(passed.count + answer.dropped.count == prefixed.count, "\(passed.count) passed + \(answer.dropped.count) dropped of \(prefixed.count)")
            check(passed.allSatisfy { $0.name.lowercased().hasPrefix(AuthorizationHook.passedHeaderPrefix) }, "a field without the prefix passed")
            forward(passed)
        case .deny:
            check(status == 403 && answer.dropped.isEmpty, "status \(status) denied")
        case .unavailable:
            check(!(200..<300).contains(status) && status != 403 && answer.dropped.isEmpty, "status \(status) unavailable")
        }
    }

    /// What `GatewayHandler` does with allowed fields, then the upstream's view of them.
    static func forward(_ passed: [HTTPHeaderField]) {
        var headers = HTTPHeaders()
        for field in passed { headers.add(name: field.name, value: field.value) }
        var upstreamHeaders = headers
        upstreamHeaders.insert(name: "Host", value: "upstream", at: 0)
        var wire: [UInt8] = []
        HTTPSerializer.appendRequestHead(HTTPRequestHead(method: "GET", target: "/", headers: upstreamHeaders), to: &wire)
        var parser = HTTPRequestParser(limits: HTTPLimits(maxRequestLineBytes: 4096, maxHeaderBytes: 1 << 20, maxHeaderCount: 1 << 14, maxBodyBytes: 0))
        unsafe wire.withUnsafeBytes { buffer in
            do throws(HTTPParseError) {
                let step = unsafe try parser.parse(buffer)
                guard case .head(let head, _)? = step.event else { failCheck("the request head did not parse to a head") }
                check(head.headers.count == passed.count + 1, "\(passed.count) fields read back as \(head.headers.count - 1)")
                for (field, parsed) in zip(passed, head.headers.dropFirst()) {
                    check(parsed.name == field.name && parsed.value == field.value,
                          "\(field.name.debugDescription): \(field.value.debugDescription) read back as \(parsed.name.debugDescription): \(parsed.value.debugDescription)")
                }
            } catch {
                failCheck("the request head with the hook's fields does not parse: \(error)")
            }
        }
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
