import AppNativeHTTP
import AppNativeTesting
import Testing

/// Differential check on inputs nobody wrote by hand: every vector, mutated at random (seeded),
/// must give the same events and the same error whether it arrives whole, byte by byte or in
/// random chunks. A parser whose verdict depends on how TCP split the bytes can be steered.
@Suite("Split consistency on mutated inputs")
struct SplitConsistencyTests {
    static let mutantsPerCase = 64

    @Test("mutated vectors parse the same under every split", arguments: try RequestVector.all().filter { $0.bytes.count <= 4096 })
    func mutatedVectors(_ vector: RequestVector) {
        // Seeded from the id's bytes (hash values change per process), so failures repeat.
        var random = SplitMix64(seed: vector.id.utf8.reduce(0xC0FFEE) { $0 &* 31 &+ UInt64($1) })
        let original = vector.bytes
        let interesting: [UInt8] = [0x0D, 0x0A, 0x20, 0x09, 0x00, 0x3A, 0x3B, 0x2C, 0x22, 0x30, 0x7F, 0x80, 0xFF]
        for mutant in 0..<Self.mutantsPerCase {
            var bytes = original
            for _ in 0..<(1 + Int(random.next() % 3)) where !bytes.isEmpty {
                let position = Int(random.next() % UInt64(bytes.count))
                let byte = interesting[Int(random.next() % UInt64(interesting.count))]
                switch random.next() % 3 {
                case 0: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: bytes.remove(at: position)
                }
            }
            let splits = [
                Split(name: "whole", sizes: bytes.isEmpty ? [] : [bytes.count]),
                Split(name: "byte-by-byte", sizes: Array(repeating: 1, count: bytes.count)),
            ] + Split.all(for: bytes.count, seed: random.next()).suffix(2)
            var reference: FeedOutcome<HTTPRequestHead>?
            for split in splits {
                var parser = HTTPRequestParser(limits: RequestVectorTests.limits)
                let outcome = Feeder.feed(bytes, to: &parser, split: split)
                if !outcome.violations.isEmpty {
                    Issue.record("\(vector.id) mutant \(mutant) [\(split)]: \(outcome.violations)")
                    break
                }
                guard let expected = reference else {
                    reference = outcome
                    continue
                }
                if outcome.messages != expected.messages || outcome.error != expected.error
                    || outcome.error?.status != expected.error?.status
                {
                    Issue.record(
                        "\(vector.id) mutant \(mutant) [\(split)]: \(EverySplit.describe(outcome)) vs whole \(EverySplit.describe(expected))"
                    )
                    break
                }
            }
        }
    }

    static let responseSeeds = [
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=\"y\"\r\nhello\r\n0\r\nT: 1\r\n\r\n",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
        "HTTP/1.0 200 OK\r\n\r\nuntil close",
    ]

    @Test("mutated responses parse the same under every split", arguments: responseSeeds.indices)
    func mutatedResponses(_ seedIndex: Int) {
        var random = SplitMix64(seed: 0xBADC0DE &+ UInt64(seedIndex))
        let original = latin1Bytes(Self.responseSeeds[seedIndex])
        let interesting: [UInt8] = [0x0D, 0x0A, 0x20, 0x09, 0x00, 0x3A, 0x3B, 0x2C, 0x22, 0x30, 0x31, 0x7F, 0xFF]
        for mutant in 0..<(Self.mutantsPerCase * 8) {
            var bytes = original
            for _ in 0..<(1 + Int(random.next() % 3)) where !bytes.isEmpty {
                let position = Int(random.next() % UInt64(bytes.count))
                let byte = interesting[Int(random.next() % UInt64(interesting.count))]
                switch random.next() % 3 {
                case 0: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: bytes.remove(at: position)
                }
            }
            var reference: FeedOutcome<HTTPResponseHead>?
            for split in [Split(name: "whole", sizes: bytes.isEmpty ? [] : [bytes.count])] + Split.all(for: bytes.count).dropFirst() {
                var parser = HTTPResponseParser()
                let outcome = Feeder.feed(bytes, to: &parser, split: split, callsEndOfInput: true)
                if !outcome.violations.isEmpty && !parser.hasSwitchedProtocols {
                    Issue.record("response seed \(seedIndex) mutant \(mutant) [\(split)]: \(outcome.violations)")
                    break
                }
                guard let expected = reference else {
                    reference = outcome
                    continue
                }
                if outcome.messages != expected.messages || outcome.error != expected.error {
                    Issue.record(
                        "response seed \(seedIndex) mutant \(mutant) [\(split)]: \(EverySplit.describe(outcome)) vs whole \(EverySplit.describe(expected))"
                    )
                    break
                }
            }
        }
    }
}
