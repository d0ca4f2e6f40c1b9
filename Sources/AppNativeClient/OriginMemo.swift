import AppNativeCore

/// The last origin a client checked against `URLPolicy`, so a run of requests to one origin
/// parses its authority once: the APNs sender posts to `https://host:port/3/device/<token>`, a
/// new URL per push whose scheme, host and port never change, and curl's URL parser was about a
/// tenth of the sender's own CPU per push.
///
/// A URL hits only when it begins with the remembered `scheme://authority`, continues with `/`,
/// and the rest is plain printable ASCII: the authority (everything the policy decides on) is
/// then byte for byte the one already checked, and nothing in the rest could be read as part of
/// it. Only authorities made of host-name, IP-literal and port characters are remembered, so no
/// spelling that parsers disagree on (user info, backslashes, percent-encoding) is ever reused.
final class OriginMemo: Sendable {
    private struct Entry: Sendable {
        let origin: String
        let allowsCleartextOnLoopback: Bool
        let target: OutboundTarget
    }

    private let last = Locked<Entry?>(nil)

    init() {}

    /// `URLPolicy.outboundTarget(url:allowsCleartextOnLoopback:)`, answered from the remembered
    /// origin when `url` is under it.
    func target(for url: String, allowsCleartextOnLoopback: Bool) throws(ClientError) -> OutboundTarget {
        let remembered = last.withLock { $0 }
        if let remembered, remembered.allowsCleartextOnLoopback == allowsCleartextOnLoopback,
            Self.isUnder(remembered.origin, url)
        {
            return remembered.target
        }
        let target = try URLPolicy.outboundTarget(url: url, allowsCleartextOnLoopback: allowsCleartextOnLoopback)
        if let origin = Self.plainOrigin(of: url) {
            last.withLock {
                $0 = Entry(origin: origin, allowsCleartextOnLoopback: allowsCleartextOnLoopback, target: target)
            }
        }
        return target
    }

    /// Whether `url` is `origin` + `/` + plain printable ASCII.
    static func isUnder(_ origin: String, _ url: String) -> Bool {
        var origin = origin
        var url = url
        return origin.withUTF8 { origin in
            url.withUTF8 { url in
                guard url.count > origin.count, url[origin.count] == UInt8(ascii: "/") else { return false }
                for index in 0..<origin.count where url[index] != origin[index] { return false }
                for index in (origin.count + 1)..<url.count where !isPlainPathByte(url[index]) { return false }
                return true
            }
        }
    }

    /// `scheme://authority` of `url` when the scheme is lower-case letters, the authority only
    /// host-name, IP-literal and port characters, and a `/` follows it; otherwise `nil`.
    static func plainOrigin(of url: String) -> String? {
        let bytes = Array(url.utf8)
        var index = 0
        while index < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[index]) { index += 1 }
        guard index > 0, bytes.count > index + 3, bytes[index] == UInt8(ascii: ":"),
            bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/")
        else { return nil }
        index += 3
        let authorityStart = index
        while index < bytes.count, isAuthorityByte(bytes[index]) { index += 1 }
        guard index > authorityStart, index < bytes.count, bytes[index] == UInt8(ascii: "/") else { return nil }
        return String(decoding: bytes[..<index], as: UTF8.self)
    }

    /// Letters, digits, `-`, `.`, `:` (port, IPv6) and the brackets of an IPv6 literal.
    private static func isAuthorityByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
            true
        default: false
        }
    }

    /// Visible ASCII that RFC 3986 allows in a path, query or fragment as it stands (no space,
    /// quote, angle bracket, backslash, caret, backtick, brace or bar).
    private static func isPlainPathByte(_ byte: UInt8) -> Bool {
        guard byte > 0x20, byte < 0x7F else { return false }
        return switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"),
            UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
            false
        default: true
        }
    }
}
