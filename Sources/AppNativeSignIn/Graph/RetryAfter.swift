public import AppNativeClient

/// The `Retry-After` field of an answer (RFC 9110 §10.2.3) in its delay-seconds form, the form
/// Microsoft Graph and Entra send with 429 and 503. An HTTP-date, a negative, a non-number or
/// several differing fields read as absent; a delay is capped at one hour, so a peer cannot shut
/// a door for a day.
public enum RetryAfter: Sendable {
    public static let maxSeconds = 3600

    public static func seconds(in headers: [HTTPHeaderField]) -> Int? {
        let values = headers.filter { $0.name.lowercased() == "retry-after" }.map(\.value)
        guard let first = values.first, values.allSatisfy({ $0 == first }) else { return nil }
        let text = first.trimmingASCIIWhitespace
        guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int(text) else {
            return nil
        }
        return min(seconds, maxSeconds)
    }
}

extension String {
    fileprivate var trimmingASCIIWhitespace: Substring {
        let bytes = Substring(self)
        let start = bytes.firstIndex(where: { $0 != " " && $0 != "\t" }) ?? bytes.endIndex
        let end = bytes.lastIndex(where: { $0 != " " && $0 != "\t" }).map { bytes.index(after: $0) } ?? start
        return start < end ? bytes[start..<end] : ""
    }
}
