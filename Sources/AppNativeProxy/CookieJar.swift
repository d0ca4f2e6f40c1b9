/// Removing one cookie from a `Cookie` header value (RFC 6265 §5.4), so the gateway's own
/// session cookie never reaches the upstream.
enum CookieJar {
    static func removing(_ name: String, from header: String) -> String? {
        let kept = header.split(separator: ";").filter { pair in
            let trimmed = pair.drop(while: { $0 == " " || $0 == "\t" })
            guard let equals = trimmed.firstIndex(of: "=") else { return true }
            return trimmed[..<equals].trimmingCharacters(in: .whitespaces) != name
        }
        let joined = kept.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
        return joined.isEmpty ? nil : joined
    }
}

import Foundation
