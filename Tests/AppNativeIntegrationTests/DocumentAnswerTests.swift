@testable import AppNativeGateway
import Testing

/// The answer to a document upload built from the backend's reference (contract/routes.md §2.8,
/// upstream-contract.md): JSON by the reference rules, a `text/plain` body as the reference text.
@Suite("Document answers from the backend's reference")
struct DocumentAnswerTests {
    static func answer(_ body: String, _ contentType: String?) -> String {
        String(decoding: NativeContract.documentAnswer(upstreamBody: Array(body.utf8), contentType: contentType), as: UTF8.self)
    }

    @Test("a text/plain body is the reference as text, whatever it spells")
    func text() {
        #expect(Self.answer("doc-7", "text/plain") == #"{"ok":true,"id":"doc-7"}"#)
        #expect(Self.answer("42", "text/plain; charset=utf-8") == #"{"ok":true,"id":"42"}"#)
        #expect(Self.answer(#""doc-1""#, " Text/Plain ;charset=utf-8") == #"{"ok":true,"id":"\"doc-1\""}"#)
        #expect(Self.answer("ü-😀", "text/plain") == #"{"ok":true,"id":"ü-😀"}"#)
        #expect(Self.answer("", "text/plain") == #"{"ok":true}"#)
        let notUTF8 = NativeContract.documentAnswer(upstreamBody: [0x64, 0xFF], contentType: "text/plain")
        #expect(String(decoding: notUTF8, as: UTF8.self) == #"{"ok":true}"#, "bytes that are not UTF-8 are no reference")
    }

    @Test("any other body is read as JSON by the reference rules")
    func json() {
        #expect(Self.answer(#""doc-1""#, "application/json") == #"{"ok":true,"id":"doc-1"}"#)
        #expect(Self.answer("42", nil) == #"{"ok":true,"id":42}"#)
        #expect(Self.answer(#"{"id":"x-9"}"#, "application/json") == #"{"ok":true,"id":"x-9"}"#)
        #expect(Self.answer("doc-7", "text/html") == #"{"ok":true}"#, "not JSON, not text/plain: no reference")
        #expect(Self.answer("true", "application/json") == #"{"ok":true}"#)
    }
}
