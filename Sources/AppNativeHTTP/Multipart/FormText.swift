/// Form names and values as text, decoded as the Python reference's form parser decodes them
/// (Starlette's `_user_safe_decode`): UTF-8, or Latin-1 when the bytes are not UTF-8, so no byte
/// is lost or replaced.
enum FormText {
    static func decode(_ bytes: [UInt8]) -> String {
        String(validating: bytes, as: UTF8.self) ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
