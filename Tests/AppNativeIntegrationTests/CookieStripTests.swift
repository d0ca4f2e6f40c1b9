import AppNativeHTTP
@testable import AppNativeProxy
import Testing

/// The session cookie never reaches the upstream: `ProxyHandler.strip` reads the `Cookie` fields
/// in place and must leave exactly what the string-by-string removal left.
@Suite("Session cookie stripped from upstream requests")
struct CookieStripTests {
    /// The removal as it was written over strings (each field without the cookie, joined), now
    /// only when the cookie is there: fields without it go upstream as they came.
    static func reference(_ fields: [String], removing name: String) -> [String] {
        var headers = HTTPHeaders()
        for field in fields { headers.add(name: "Cookie", value: field) }
        guard !CookieHeader.values(named: name, in: headers.values("Cookie")).isEmpty else {
            return headers.values("Cookie")
        }
        let remaining = headers.values("Cookie").compactMap { CookieHeader.removing(name, from: $0) }
        return remaining.isEmpty ? [] : [remaining.joined(separator: "; ")]
    }

    static let cases: [[String]] = [
        [],
        ["a=1"],
        ["bms_session=abc"],
        ["a=1; bms_session=abc; b=2"],
        ["a=1;bms_session=abc;b=2"],
        [" bms_session = \"abc\" ; a=1 "],
        ["a=1", "bms_session=abc", "b=2"],
        ["bms_session=abc", "bms_session=def"],
        ["bms_sessionx=1; xbms_session=2"],
        ["a=1;b=2", "c=3"],
        ["bms_session; a=1"],
        ["a=1; ; ;b=2; bms_session="],
        ["caf\u{E9}=1; bms_session=abc"],
        ["a=1", "n\u{E9}=2; bms_session=x"],
    ]

    @Test("the same fields as the string removal", arguments: cases)
    func sameAsStrings(_ fields: [String]) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "h")
        for field in fields { headers.add(name: "Cookie", value: field) }
        ProxyHandler.strip("bms_session", from: &headers)
        let expected = Self.reference(fields, removing: "bms_session")
        #expect(headers.values("Cookie") == expected, "\(fields)")
        #expect(headers.first("Host") == "h")
    }
}
