import AppNativeSignIn
import Testing

@Suite("Sign-in return path")
struct ReturnPathTests {
    @Test(arguments: ["/", "/app", "/app/page?x=1&y=%20z", "/a/b/c#frag", "/%41", "/a//b", "/a/%2F/b", "/~user", "/a:b"])
    func sameOriginPathsAreKept(path: String) {
        #expect(ReturnPath(validating: path)?.value == path)
    }

    @Test(arguments: [
        "", "app", "//evil.example", "///evil.example", "/\\evil.example", "\\\\evil.example", "/a\\b",
        "https://evil.example/", "javascript:alert(1)", "http:/evil", "/\t/evil.example", "/\n/evil.example", "/\r/evil",
        "/ /evil", "/a\u{0}b", "/a\u{7F}", "/é", "/%2F/evil.example", "/%2f%2fevil.example", "/%5Cevil.example",
        " /app", "/\u{2215}evil", "data:text/html,x",
    ])
    func everythingElseIsRefused(candidate: String) {
        #expect(ReturnPath(validating: candidate) == nil)
        #expect(ReturnPath.orRoot(candidate) == .root)
    }

    @Test func everyControlByteIsRefused() {
        for byte in UInt8(0)...UInt8(0x20) {
            let candidate = "/a" + String(decoding: [byte], as: UTF8.self) + "b"
            #expect(ReturnPath(validating: candidate) == nil, "byte \(byte)")
        }
    }

    @Test func overlongIsRefused() {
        #expect(ReturnPath(validating: "/" + String(repeating: "a", count: ReturnPath.maxBytes)) == nil)
        #expect(ReturnPath(validating: "/" + String(repeating: "a", count: ReturnPath.maxBytes - 1)) != nil)
    }

    @Test func missingBecomesRoot() {
        #expect(ReturnPath.orRoot(nil) == .root)
        #expect(ReturnPath.root.value == "/")
    }
}
