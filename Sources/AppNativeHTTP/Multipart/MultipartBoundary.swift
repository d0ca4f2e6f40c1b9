/// The boundary of a `multipart/form-data` body, checked against RFC 2046 §5.1.1.
///
/// Parsers take it from the request's Content-Type (`init(contentType:)`); writers make a fresh
/// random one (`random()`), long enough that it cannot occur in forwarded content by chance.
public struct MultipartBoundary: Sendable, Hashable, CustomStringConvertible {
    /// The boundary, without the leading `--` of a delimiter.
    public let value: String

    /// RFC 2046 §5.1.1: boundary := 0*69<bchars> bcharsnospace, so at most 70 characters.
    public static let maxLength = 70

    /// A boundary given as it is.
    /// - Parameter value: 1 to 70 `bchars`, not ending in a space.
    /// - Throws: `HTTPParseError` `.invalidBoundary` when `value` breaks RFC 2046 §5.1.1.
    public init(_ value: String) throws(HTTPParseError) {
        try Self.check(Array(value.utf8))
        self.value = value
    }

    /// The boundary of a request Content-Type header value.
    ///
    /// The media type must be `multipart/form-data` (RFC 7578 §4.1, case-insensitive) with
    /// exactly one `boundary` parameter, as a token or a quoted-string; other parameters are
    /// ignored, but none may repeat.
    /// - Parameter contentType: the Content-Type field value.
    /// - Throws: `HTTPParseError` `.invalidMultipartType`, `.missingBoundary` or `.invalidBoundary`.
    public init(contentType: String) throws(HTTPParseError) {
        var bytes: [UInt8] = []
        for scalar in contentType.unicodeScalars {
            // HTTPHeaders strings are Latin-1: one scalar per field byte.
            guard scalar.value <= 0xFF else {
                throw HTTPParseError(.invalidMultipartType, reason: "Content-Type is not a field value")
            }
            bytes.append(UInt8(scalar.value))
        }
        guard let parsed = HeaderParameters.parse(bytes, isMediaType: true) else {
            throw HTTPParseError(.invalidMultipartType, reason: "Content-Type is not type/subtype *(; parameter)")
        }
        guard parsed.leading == "multipart/form-data" else {
            throw HTTPParseError(.invalidMultipartType, reason: "media type is not multipart/form-data")
        }
        let boundaries = parsed.parameters.filter { $0.name == "boundary" }
        guard boundaries.count == 1, let boundary = boundaries.first else {
            if boundaries.isEmpty { throw HTTPParseError(.missingBoundary, reason: "no boundary parameter") }
            throw HTTPParseError(.invalidBoundary, reason: "more than one boundary parameter")
        }
        guard !parsed.hasRepeatedName else {
            throw HTTPParseError(.invalidMultipartType, reason: "a Content-Type parameter is repeated")
        }
        try Self.check(boundary.value)
        // bchars are ASCII, so this decoding is exact.
        value = String(decoding: boundary.value, as: UTF8.self)
    }

    /// A fresh boundary: a fixed prefix and 32 random letters and digits (about 190 bits), so a
    /// forwarded file cannot contain its delimiter except with negligible probability.
    /// - Parameter generator: the source of randomness; the system generator reads the
    ///   kernel's CSPRNG (getrandom on Linux).
    public static func random(using generator: inout some RandomNumberGenerator) -> MultipartBoundary {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var bytes = Array("AppNativeFormBoundary".utf8)
        for _ in 0..<32 { bytes.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]) }
        return MultipartBoundary(checked: String(decoding: bytes, as: UTF8.self))
    }

    /// A fresh boundary from the system's random generator.
    public static func random() -> MultipartBoundary {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    private init(checked value: String) {
        self.value = value
    }

    /// The boundary.
    public var description: String { value }

    /// RFC 2046 §5.1.1: bchars := bcharsnospace / " "; bcharsnospace := DIGIT / ALPHA / "'" /
    /// "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?".
    static func isBchar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "+"), UInt8(ascii: "_"), UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: " "):
            true
        default: false
        }
    }

    private static func check(_ bytes: [UInt8]) throws(HTTPParseError) {
        guard (1...maxLength).contains(bytes.count) else {
            throw HTTPParseError(.invalidBoundary, reason: "boundary is not 1 to 70 characters")
        }
        guard bytes.allSatisfy(isBchar), bytes.last != ASCII.sp else {
            throw HTTPParseError(.invalidBoundary, reason: "boundary has a character outside bchars or ends in a space")
        }
    }
}
