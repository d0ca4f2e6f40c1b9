import AppNativeHTTP
import Testing

/// The checks for fields a peer chose: `isValidFieldName` must refuse exactly what `add` would
/// stop the process for, and `isValidFieldValue` values that are not field values.
@Suite("HTTPHeaders field validity")
struct HeadersValidationTests {
    /// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
    /// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    static let tchars = Set(Array("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8))

    @Test("a name is valid exactly when every byte is a tchar and it is not empty")
    func namesOverEveryByte() {
        #expect(!HTTPHeaders.isValidFieldName(""))
        for byte in UInt8.min...UInt8.max {
            // The Latin-1 reading the client gives received names: one scalar per byte.
            let name = "X-Authz-" + String(UnicodeScalar(byte))
            #expect(HTTPHeaders.isValidFieldName(name) == Self.tchars.contains(byte), "byte \(byte)")
        }
        for name in ["X-Authz-a b", "X-Authz-a\tb", "X-Authz-(", "X-Authz-/", "X-Authz-\"", "X-Authz-\u{7F}", "X-Authz-\u{E9}", "X-Authz-\u{1F600}"] {
            #expect(!HTTPHeaders.isValidFieldName(name), "\(name.unicodeScalars.map(\.value))")
        }
    }

    /// RFC 9110 §5.5: field-value = *field-content; field-vchar = VCHAR / obs-text, with SP and
    /// HTAB between; no other control.
    @Test("a value is valid exactly when it holds no control other than HTAB")
    func valuesOverEveryByte() {
        for byte in UInt8.min...UInt8.max {
            let value = "a" + String(UnicodeScalar(byte)) + "b"
            let expected = byte >= 0x20 && byte != 0x7F || byte == 0x09
            #expect(HTTPHeaders.isValidFieldValue(value) == expected, "byte \(byte)")
        }
        #expect(HTTPHeaders.isValidFieldValue(""))
        #expect(HTTPHeaders.isValidFieldValue("caf\u{E9} \u{1F600}"))
    }
}
