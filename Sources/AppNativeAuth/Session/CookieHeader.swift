/// Parsing and rewriting of `Cookie` request headers (RFC 6265 §4.2, §5.4).
public enum CookieHeader: Sendable {
    /// The values of every cookie called `name`, in order, across all `Cookie` header values.
    public static func values(named name: String, in headers: [String]) -> [String] {
        var found = [String]()
        for header in headers {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop(while: { $0 == " " || $0 == "\t" })
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                guard trimmed[..<equals].trimmingTrailingSpaces() == name else { continue }
                var value = trimmed[trimmed.index(after: equals)...].trimmingTrailingSpaces()
                // RFC 6265 §4.1.1 allows the value in double quotes.
                if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
                found.append(String(value))
            }
        }
        return found
    }

    /// The header value without the cookies called `name`; `nil` when nothing is left.
    /// Used so the gateway's own session cookie never reaches the upstream.
    public static func removing(_ name: String, from header: String) -> String? {
        let kept = header.split(separator: ";").filter { pair in
            let trimmed = pair.drop(while: { $0 == " " || $0 == "\t" })
            guard let equals = trimmed.firstIndex(of: "=") else { return true }
            return trimmed[..<equals].trimmingTrailingSpaces() != name
        }
        let joined = kept.map { $0.drop(while: { $0 == " " || $0 == "\t" }) }.joined(separator: "; ")
        return joined.isEmpty ? nil : joined
    }
}

extension Substring {
    fileprivate func trimmingTrailingSpaces() -> Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " || self[index(before: end)] == "\t" {
            end = index(before: end)
        }
        return self[startIndex..<end]
    }
}
