/// The text encoding of a JSON body, told apart as Python's `json.detect_encoding` does, which is
/// how the reference (FastAPI calling `json.loads` on the body's bytes) reads it.
enum BodyEncoding {
    case utf8
    /// UTF-8 behind a byte order mark, which is dropped.
    case utf8WithMark
    case utf16(bigEndian: Bool, hasMark: Bool)
    case utf32(bigEndian: Bool, hasMark: Bool)

    /// Python's rule: a byte order mark first, else where the NUL bytes of the first four are.
    init(_ bytes: [UInt8]) {
        func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
        if starts([0x00, 0x00, 0xFE, 0xFF]) {
            self = .utf32(bigEndian: true, hasMark: true)
        } else if starts([0xFF, 0xFE, 0x00, 0x00]) {
            self = .utf32(bigEndian: false, hasMark: true)
        } else if starts([0xFE, 0xFF]) {
            self = .utf16(bigEndian: true, hasMark: true)
        } else if starts([0xFF, 0xFE]) {
            self = .utf16(bigEndian: false, hasMark: true)
        } else if starts([0xEF, 0xBB, 0xBF]) {
            self = .utf8WithMark
        } else if bytes.count >= 4 {
            if bytes[0] == 0 {
                self = bytes[1] != 0 ? .utf16(bigEndian: true, hasMark: false) : .utf32(bigEndian: true, hasMark: false)
            } else if bytes[1] == 0 {
                self =
                    bytes[2] != 0 || bytes[3] != 0
                    ? .utf16(bigEndian: false, hasMark: false) : .utf32(bigEndian: false, hasMark: false)
            } else {
                self = .utf8
            }
        } else if bytes.count == 2, bytes[0] == 0 {
            self = .utf16(bigEndian: true, hasMark: false)
        } else if bytes.count == 2, bytes[1] == 0 {
            self = .utf16(bigEndian: false, hasMark: false)
        } else {
            self = .utf8
        }
    }

    /// `bytes` as UTF-8 without a byte order mark; `nil` when they are not valid in their
    /// encoding (UTF-8 itself is left to the JSON parser, which reports where it breaks).
    static func utf8(_ bytes: [UInt8]) -> [UInt8]? {
        switch BodyEncoding(bytes) {
        case .utf8:
            return bytes
        case .utf8WithMark:
            return Array(bytes.dropFirst(3))
        case .utf16(let bigEndian, let hasMark):
            let body = bytes.dropFirst(hasMark ? 2 : 0)
            guard body.count % 2 == 0 else { return nil }
            var units: [UInt16] = []
            units.reserveCapacity(body.count / 2)
            var index = body.startIndex
            while index < body.endIndex {
                let first = UInt16(body[index])
                let second = UInt16(body[index + 1])
                units.append(bigEndian ? first << 8 | second : second << 8 | first)
                index += 2
            }
            return transcoded(units, from: UTF16.self)
        case .utf32(let bigEndian, let hasMark):
            let body = bytes.dropFirst(hasMark ? 4 : 0)
            guard body.count % 4 == 0 else { return nil }
            var units: [UInt32] = []
            units.reserveCapacity(body.count / 4)
            var index = body.startIndex
            while index < body.endIndex {
                let quad = (0..<4).map { UInt32(body[index + $0]) }
                units.append(
                    bigEndian
                        ? quad[0] << 24 | quad[1] << 16 | quad[2] << 8 | quad[3]
                        : quad[3] << 24 | quad[2] << 16 | quad[1] << 8 | quad[0])
                index += 4
            }
            return transcoded(units, from: UTF32.self)
        }
    }

    private static func transcoded<Codec: UnicodeCodec>(_ units: [Codec.CodeUnit], from codec: Codec.Type) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(units.count)
        let failed = transcode(units.makeIterator(), from: codec, to: UTF8.self, stoppingOnError: true) {
            output.append($0)
        }
        return failed ? nil : output
    }
}
