/// The media type of a `Content-Type`, the way the reference compares it (Starlette and FastAPI):
/// the part before any `;`, spaces and tabs trimmed, lower-cased. Every check of a request's or an
/// upstream answer's type (JSON, a form, `text/plain`) reads it through here.
package enum MediaType {
    package static func of(_ contentType: String) -> String {
        let beforeParameters = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(beforeParameters.drop(while: isBlank).reversed().drop(while: isBlank).reversed()).lowercased()
    }
}
