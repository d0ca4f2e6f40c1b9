import AppNativeTesting
/// The ways a test feeds one input to a parser (docs/style.md §6): whole, byte by byte, split in two
/// at every boundary, and random chunk sizes from a fixed seed.
struct Split: Sendable, CustomStringConvertible {
    let name: String
    /// Chunk sizes, summing to the input length.
    let sizes: [Int]

    var description: String { name }

    /// Two-part splits at every boundary are quadratic; above this size only the others run.
    static let everyBoundaryLimit = 4096

    static func all(for count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [Split] {
        var splits = [Split(name: "whole", sizes: count == 0 ? [] : [count])]
        if count > 1 {
            splits.append(Split(name: "byte-by-byte", sizes: Array(repeating: 1, count: count)))
        }
        if count <= everyBoundaryLimit {
            for boundary in stride(from: 1, to: count, by: 1) {
                splits.append(Split(name: "split at \(boundary)", sizes: [boundary, count - boundary]))
            }
        }
        var random = SplitMix64(seed: seed ^ UInt64(count))
        for round in 0..<4 {
            var sizes: [Int] = []
            var left = count
            let maxChunk = max(1, [3, 17, 64, count / 3][round])
            while left > 0 {
                let size = min(left, 1 + Int(random.next() % UInt64(maxChunk)))
                sizes.append(size)
                left -= size
            }
            splits.append(Split(name: "random #\(round) (chunks ≤ \(maxChunk))", sizes: sizes))
        }
        return splits
    }
}

/// A small deterministic generator (Steele, Lea, Flood 2014) so random splits repeat exactly.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Bytes of a string whose characters are all U+0000…U+00FF (the vectors' Latin-1 rule).
func latin1Bytes(_ text: String) -> [UInt8] {
    HTTPRequestVector.latin1Bytes(text)
}

/// The string whose scalars are these bytes.
func latin1String(_ bytes: some Sequence<UInt8>) -> String {
    String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
}
