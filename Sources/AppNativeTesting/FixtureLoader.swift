public import Foundation

/// Loads committed test fixtures and public vectors from a test target's resource bundle.
///
/// A fresh clone is self-contained: vectors are copied into `Tests/<Module>Tests/Fixtures/`
/// and a missing file is an error, never a silently skipped test (docs/style.md §6).
public struct FixtureLoader: Sendable {
    public struct MissingFixture: Error, CustomStringConvertible {
        public let path: String
        public init(path: String) { self.path = path }
        public var description: String { "missing fixture: \(path)" }
    }

    private let root: URL

    /// - Parameter bundle: the test target's `Bundle.module`; fixtures live under its `Fixtures/` folder.
    public init(bundle: Bundle) {
        root = bundle.resourceURL!.appendingPathComponent("Fixtures", isDirectory: true)
    }

    /// The bytes of `Fixtures/<relativePath>`.
    public func data(_ relativePath: String) throws -> Data {
        let url = root.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else { throw MissingFixture(path: relativePath) }
        return try Data(contentsOf: url)
    }

    /// The file names directly inside `Fixtures/<relativeDirectory>`, sorted.
    public func fileNames(in relativeDirectory: String) throws -> [String] {
        let url = root.appendingPathComponent(relativeDirectory, isDirectory: true)
        guard FileManager.default.fileExists(atPath: url.path) else { throw MissingFixture(path: relativeDirectory) }
        return try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    /// A JSON fixture decoded with Foundation (test-side only; product code uses AppNativeJSON).
    public func json(_ relativePath: String) throws -> Any {
        try JSONSerialization.jsonObject(with: data(relativePath), options: [.fragmentsAllowed])
    }
}

/// Hex helpers for vector files (Wycheproof encodes bytes as lower-case hex).
public enum Hex: Sendable {
    public static func bytes(_ text: String) -> [UInt8]? {
        let scalars = Array(text.utf8)
        guard scalars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(scalars.count / 2)
        var index = 0
        while index < scalars.count {
            guard let high = nibble(scalars[index]), let low = nibble(scalars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
        }.joined()
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
