import Foundation

/// One framing case of a `POST {p}/documents` upload and the answer the reference gives it
/// (Starlette's and FastAPI's messages). The one table both servers of the routes are tested with:
/// the gateway (NativeDocumentTests) and `NativeRoutes` (DocumentRouteTests), which read uploads
/// through the same check.
public struct DocumentUploadFramingCase: Sendable, CustomStringConvertible {
    /// What the case shows.
    public let name: String
    /// The request body.
    public let body: String
    /// The request's `Content-Type`.
    public let contentType: String
    /// The expected status.
    public let status: Int
    /// A part of the expected body.
    public let answerFragment: String

    public var description: String { name }

    /// The cases for uploads delimited by `boundary`: a preamble, transport padding, a part
    /// without a name, no or an empty boundary are refused with 400; a body cut short in the file
    /// misses its file (422); CR LF before the first delimiter is accepted.
    public static func all(boundary: String) -> [DocumentUploadFramingCase] {
        let type = "multipart/form-data; boundary=\(boundary)"
        let part = { (disposition: String, value: String) in "--\(boundary)\r\nContent-Disposition: \(disposition)\r\n\r\n\(value)\r\n" }
        let valid = part(#"form-data; name="device_id""#, "d1") + part(#"form-data; name="file"; filename="a.pdf""#, "%PDF")
        let close = "--\(boundary)--\r\n"
        let malformed = #"{"detail":"Invalid multipart data."}"#
        return [
            .init(name: "preamble", body: "junk\r\n" + valid + close, contentType: type, status: 400, answerFragment: malformed),
            .init(
                name: "transport padding", body: valid.replacingOccurrences(of: "\(boundary)\r\n", with: "\(boundary) \r\n") + close,
                contentType: type, status: 400, answerFragment: malformed),
            .init(
                name: "no name", body: part("form-data", "x") + valid + close, contentType: type, status: 400,
                answerFragment: #"{"detail":"The Content-Disposition header field \"name\" must be provided."}"#),
            .init(
                name: "no boundary", body: valid + close, contentType: "multipart/form-data", status: 400,
                answerFragment: #"{"detail":"Missing boundary in multipart."}"#),
            .init(name: "empty boundary", body: valid + close, contentType: "multipart/form-data; boundary=", status: 400, answerFragment: malformed),
            .init(name: "truncated in the file", body: valid, contentType: type, status: 422, answerFragment: #""loc":["body","file"]"#),
            .init(name: "CR LF before the first delimiter", body: "\r\n" + valid + close, contentType: type, status: 200, answerFragment: "\"ok\":true"),
        ]
    }
}
