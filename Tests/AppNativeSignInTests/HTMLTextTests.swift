import AppNativeSignIn
import Testing

@Suite("HTML text escaping")
struct HTMLTextTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("<script>", "&lt;script&gt;"),
        ("a & b", "a &amp; b"),
        ("\"quoted\" 'single'", "&quot;quoted&quot; &#39;single&#39;"),
        // A combining mark makes `<` part of a larger Character; the tokenizer still sees `<`.
        ("<\u{301}img src=x>", "&lt;\u{301}img src=x&gt;"),
        ("&\u{301}amp;", "&amp;\u{301}amp;"),
    ])
    func escapesEverySignificantScalar(_ input: String, _ expected: String) {
        #expect(HTMLText.escaped(input) == expected)
        #expect(!HTMLText.escaped(input).unicodeScalars.contains { $0 == "<" || $0 == ">" || $0 == "\"" || $0 == "'" })
    }
}
