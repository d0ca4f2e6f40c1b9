import AppNativeAuth
@testable import AppNativeProxy
import Testing

/// The byte scans of `Cookie` headers on the cookie path: reading the session cookie and
/// removing it before the request goes upstream (RFC 6265 §4.2.1, §5.4).
@Suite("Cookie header scans")
struct CookieScanTests {
    static let long = String(repeating: "eyJhbGciOiJIUzI1NiJ9", count: 20)

    @Test("values of one cookie, in order, across headers", arguments: [
        (["bms_session=abc"], ["abc"]),
        (["theme=dark; bms_session=abc; lang=en"], ["abc"]),
        (["theme=dark;bms_session=abc;lang=en"], ["abc"]),
        (["bms_session = abc ; x=1"], ["abc"]),
        (["bms_session=\"quoted\""], ["quoted"]),
        (["bms_session="], [""]),
        (["xbms_session=no; bms_sessionx=no; bms_session"], []),
        (["a=1", "bms_session=one", "b=2; bms_session=two"], ["one", "two"]),
        (["bms_session=a=b=c; ;; "], ["a=b=c"]),
        (["theme=dark; bms_session=\(long)"], [long]),
        ([";;;", "", " ; "], []),
    ] as [([String], [String])])
    func values(headers: [String], expected: [String]) {
        #expect(CookieHeader.values(named: "bms_session", in: headers) == expected)
    }

    @Test("removal keeps every other cookie, normalised to `; `", arguments: [
        ("bms_session=abc", nil),
        ("theme=dark; bms_session=abc; lang=en", "theme=dark; lang=en"),
        ("theme=dark;bms_session=abc;lang=en", "theme=dark; lang=en"),
        ("bms_session = abc ;x=1", "x=1"),
        ("xbms_session=1; bms_sessionx=2", "xbms_session=1; bms_sessionx=2"),
        ("a=1; bms_session=\(long); b=2; bms_session=again", "a=1; b=2"),
        (" ; ;", nil),
        ("flag; bms_session=1", "flag"),
        ("caf\u{e9}=1; bms_session=2", "caf\u{e9}=1"),
    ] as [(String, String?)])
    func removal(header: String, expected: String?) {
        #expect(CookieJar.removing("bms_session", from: header) == expected)
    }
}
