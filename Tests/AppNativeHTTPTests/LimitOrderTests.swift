import AppNativeHTTP
import Testing

/// Found by Tests/Fuzz (FuzzHTTPRequestParser, split invariance): a field line that passes
/// `maxHeaderBytes` and holds a syntax error after the limit got 400 when it arrived whole and
/// 431 when it arrived split before the bad byte. The limit must win whatever lies beyond it
/// (RFC 6585 §5), so the status a client gets never depends on how TCP split its bytes.
@Suite("Limits win over syntax errors beyond them")
struct LimitOrderTests {
    static let limits = HTTPLimits(maxRequestLineBytes: 256, maxHeaderBytes: 1024, maxHeaderCount: 16)
    static let longRun = String(repeating: "a", count: 2000)

    /// A field line that breaks a rule only after the limit.
    struct LateError: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let field: String
    }

    @Test(
        "a field line past maxHeaderBytes gets 431 under every split, whatever byte breaks it later",
        arguments: [
            LateError(testDescription: "name not a token", field: "X\(longRun)\u{1B}: b\r\n\r\n"),
            LateError(testDescription: "control character in the value", field: "X: \(longRun)\u{01}\r\n\r\n"),
            LateError(testDescription: "bare LF after the value", field: "X: \(longRun)\n\r\n"),
        ]
    )
    func fieldSectionLimit(_ late: LateError) {
        // HeadScanner checks the section size before reporting a syntax error past it, so the
        // verdict does not depend on how much of the line is in view.
        let outcome = EverySplit.request("GET / HTTP/1.1\r\nHost: a\r\n" + late.field, limits: Self.limits)
        #expect(outcome.error?.status == 431)
    }
}
