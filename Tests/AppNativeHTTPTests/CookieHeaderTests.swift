import AppNativeHTTP
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// The byte scans of `Cookie` headers on the cookie path: reading the session cookie and
/// removing it before the request goes upstream (RFC 6265 §4.2.1, §5.4). One scanner does both,
/// so every value `values` reads is gone after `removing`.
@Suite("Cookie header scans")
struct CookieHeaderTests {
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

    @Test("whatever is read as the session cookie is what removal takes out", arguments: [
        "bms_session=a", " bms_session = a ", "x=1;bms_session=a;bms_session=b", "bms_session\t=\ta",
        "caf\u{e9}=1; bms_session=\u{e9}", "bms_session=\"q\"; y", "bms_sessio=1; bms_session", "\u{a0}bms_session=a",
    ])
    func readAndRemovedAgree(header: String) {
        let read = CookieHeader.values(named: "bms_session", in: [header])
        let rest = CookieHeader.removing("bms_session", from: header)
        #expect(CookieHeader.values(named: "bms_session", in: rest.map { [$0] } ?? []).isEmpty, "\(header.debugDescription)")
        #expect(read.isEmpty || rest != header, "\(header.debugDescription)")
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
        #expect(CookieHeader.removing("bms_session", from: header) == expected)
    }

    @Test("a cookie family is removed by its name prefix, with the exact name, and nothing else", arguments: [
        ("a=1; __Host-bms_signin_X=v; bms_session=s; b=2", "a=1; b=2"),
        ("bms_signin_Y=v;bms_signin_=w; c=3", "c=3"),
        ("xbms_signin_Y=v; bms_signi=w; __Host-bms_signi=z", "xbms_signin_Y=v; bms_signi=w; __Host-bms_signi=z"),
        ("bms_signin_Y", "bms_signin_Y"),
        ("__Host-bms_signin_A=1; bms_signin_B=2; bms_session=3", nil),
    ] as [(String, String?)])
    func prefixRemoval(header: String, expected: String?) {
        let prefixes = ["__Host-bms_signin_", "bms_signin_"]
        #expect(CookieHeader.removing("bms_session", orNamesStartingWith: prefixes, from: header) == expected)
        var kept = [UInt8]()
        var field = Array(header.utf8)
        let removed = unsafe field.withUnsafeMutableBufferPointer {
            unsafe CookieHeader.appendRemaining(of: UnsafeBufferPointer($0), removing: "bms_session", orNamesStartingWith: prefixes, to: &kept)
        }
        #expect(removed == (expected != header))
        #expect((kept.isEmpty ? nil : String(decoding: kept, as: UTF8.self)) == expected)
    }
}
