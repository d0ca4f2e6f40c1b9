/// Where the browser goes after signing in: a path on this origin, nothing else (RFC 9700
/// §4.11, open redirectors). Anything that is not plainly such a path becomes `/`.
public struct ReturnPath: Sendable, Equatable, CustomStringConvertible {
    /// Starts with exactly one `/`; visible ASCII only; no `\`.
    public let value: String

    public static let root = ReturnPath(checked: "/")

    /// Longest path kept; a longer one (nobody types it, an attacker might) becomes `/`.
    public static let maxBytes = 2048

    private init(checked value: String) {
        self.value = value
    }

    /// `candidate` when it is a same-origin path, else `nil`.
    ///
    /// Refused: anything not starting with `/`; `//` and `/\` (browsers read both as a
    /// scheme-relative URL naming another host); any `\` (WHATWG URL parsing turns it into `/`
    /// in http(s) URLs); control bytes, space and DEL (browsers strip tab and newlines, which can
    /// join `/` `/` back together) and non-ASCII; a scheme can then not appear before the first `/`.
    public init?(validating candidate: String) {
        let bytes = Array(candidate.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maxBytes, bytes[0] == UInt8(ascii: "/") else { return nil }
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") { return nil }
        for byte in bytes {
            guard byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
        }
        // Percent-encoded slashes and backslashes right after the first `/` are refused too: a
        // server behind us that decodes before routing could turn them into `//host`.
        if bytes.count >= 4, bytes[1] == UInt8(ascii: "%") {
            let escape = String(decoding: bytes[2..<4], as: UTF8.self).uppercased()
            if escape == "2F" || escape == "5C" { return nil }
        }
        self.init(checked: candidate)
    }

    /// `candidate` when valid, else `/`: a refused return path still signs the user in, on this origin.
    public static func orRoot(_ candidate: String?) -> ReturnPath {
        candidate.flatMap(ReturnPath.init(validating:)) ?? .root
    }

    public var description: String { value }
}
