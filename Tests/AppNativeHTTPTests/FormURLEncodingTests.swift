import AppNativeHTTP
import Testing

@Suite("Form encoding")
struct FormURLEncodingTests {
    static func encoded(_ pairs: [(name: String, value: String)]) -> String {
        String(decoding: FormURLEncoding.serialize(pairs), as: UTF8.self)
    }

    /// The WHATWG serializer: alphanumerics and `*-._` stay, space becomes `+`, every other byte
    /// of the UTF-8 form is percent-encoded in upper-case hex.
    @Test func serializerFollowsTheURLStandard() {
        #expect(Self.encoded([("a", "b"), ("c", "d")]) == "a=b&c=d")
        #expect(Self.encoded([("scope", "openid profile email")]) == "scope=openid+profile+email")
        #expect(Self.encoded([("x", "*-._~!'()+&=/?#%")]) == "x=*-._%7E%21%27%28%29%2B%26%3D%2F%3F%23%25")
        #expect(Self.encoded([("redirect_uri", "https://app.example.com/.auth/callback")])
            == "redirect_uri=https%3A%2F%2Fapp.example.com%2F.auth%2Fcallback")
        #expect(Self.encoded([("name", "Zoë Müller-Łukasz")]) == "name=Zo%C3%AB+M%C3%BCller-%C5%81ukasz")
        #expect(Self.encoded([("", "")]) == "=")
        #expect(Self.encoded([]) == "")
    }

    @Test func everyByteRoundTrips() {
        var text = ""
        for scalar in 1...0x7f { text.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
        text += "é€😀"
        let parsed = FormURLEncoding.parse(FormURLEncoding.serialize([("k&=", text), ("second", "")]))
        #expect(parsed.count == 2)
        #expect(parsed.first?.name == "k&=")
        #expect(parsed.first?.value == text)
        #expect(parsed.last?.value == "")
    }

    @Test func parserReadsQueriesAsTheURLStandardDoes() {
        let pairs = FormURLEncoding.parse(Array("a=1&&b&c=%zz&d=%41+x&=e".utf8))
        #expect(pairs.map(\.name) == ["a", "b", "c", "d", ""])
        #expect(pairs.map(\.value) == ["1", "", "%zz", "A x", "e"])
        let query = FormURLEncoding.parseQuery(ofTarget: "/callback?code=abc&state=x%2By")
        #expect(query.map(\.name) == ["code", "state"])
        #expect(query.map(\.value) == ["abc", "x+y"])
        #expect(FormURLEncoding.parseQuery(ofTarget: "/callback").isEmpty)
    }
}
