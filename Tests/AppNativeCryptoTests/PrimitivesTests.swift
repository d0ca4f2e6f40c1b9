import AppNativeCrypto
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

@Suite("SecretBytes, ConstantTime, SecureRandom")
struct PrimitivesTests {
    @Test("SecretBytes keeps a copy and lends it back")
    func secretBytes() {
        let source: [UInt8] = [1, 2, 3, 4]
        let secret = SecretBytes(source)
        #expect(secret.count == 4)
        let observed1 = unsafe secret.withUnsafeBytes { unsafe Array($0) } == source
        #expect(observed1)

        var zeroed: [UInt8] = [9, 8, 7]
        let kept = SecretBytes(zeroing: &zeroed)
        #expect(zeroed == [0, 0, 0], "the caller's copy is wiped")
        let observed2 = unsafe kept.withUnsafeBytes { unsafe Array($0) } == [9, 8, 7]
        #expect(observed2)

        let text = SecretBytes(utf8: "pässword")
        #expect(text.count == "pässword".utf8.count)
        let observed3 = unsafe text.withUnsafeBytes { unsafe Array($0) } == Array("pässword".utf8)
        #expect(observed3)

        let empty = SecretBytes([])
        let emptyCount = unsafe empty.withUnsafeBytes { $0.count }
        #expect(empty.count == 0 && emptyCount == 0)

        let random = SecretBytes.random(count: 32)
        #expect(random.count == 32)
        let observed4 = unsafe random.withUnsafeBytes { unsafe Array($0) } != [UInt8](repeating: 0, count: 32)
        #expect(observed4)
        #expect(ConstantTime.equals([1, 2, 3, 4], secret))
    }

    @Test("ConstantTime.equals compares length, then contents")
    func constantTime() {
        #expect(ConstantTime.equals([], []))
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([], [0]))
        let a: [UInt8] = Array(repeating: 0xab, count: 1000)
        var b = a
        b[999] = 0xac
        let observed5 = unsafe !a.withUnsafeBytes { x in unsafe b.withUnsafeBytes { y in unsafe ConstantTime.equals(x, y) } }
        #expect(observed5)
        let observed6 = unsafe a.withUnsafeBytes { x in unsafe a.withUnsafeBytes { y in unsafe ConstantTime.equals(x, y) } }
        #expect(observed6)
    }

    @Test("SecureRandom gives the requested count of unpredictable bytes")
    func secureRandom() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
        let first = SecureRandom.bytes(count: 64)
        let second = SecureRandom.bytes(count: 64)
        #expect(first.count == 64 && second.count == 64)
        #expect(first != second)
        #expect(Set(first).count > 16, "64 random bytes take many distinct values")
        var buffer = [UInt8](repeating: 0, count: 100_000)
        unsafe buffer.withUnsafeMutableBytes { unsafe SecureRandom.fill($0) }
        #expect(buffer.filter { $0 == 0 }.count < 1_000)
    }

    @Test("RandomBytePool: every draw is fresh, across refills, and sized as asked")
    func randomBytePool() {
        var pool = RandomBytePool(capacity: 48)
        var draws = [[UInt8]]()
        for count in [16, 16, 10, 16, 0, 48, 16, 16, 16, 7] {
            let drawn = unsafe pool.draw(count) { unsafe Array($0) }
            #expect(drawn.count == count)
            if count >= 16 { draws.append(drawn) }
        }
        // 16 random bytes repeating would mean a draw handed out twice (or a refill that did not happen).
        let prefixes = draws.map { Array($0.prefix(16)) }
        #expect(Set(prefixes).count == prefixes.count)
        var ids = Set<[UInt8]>()
        var large = RandomBytePool()
        for _ in 0..<5000 { unsafe ids.insert(large.draw(16) { unsafe Array($0) }) }
        #expect(ids.count == 5000)
    }

    @Test("a RandomBytePool draw larger than its capacity traps")
    func oversizedDrawTraps() async {
        await #expect(processExitsWith: .failure) {
            var pool = RandomBytePool(capacity: 16)
            _ = unsafe pool.draw(17) { $0.count }
        }
    }

    @Test("a negative random byte count traps")
    func negativeCountTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = SecureRandom.bytes(count: -1)
        }
    }

    @Test("CryptoError equality compares codes only")
    func errorEquality() {
        let a = CryptoError(.weakKey, "one reason")
        let b = CryptoError(.weakKey, "another reason")
        #expect(a == b)
        #expect(a != CryptoError(.invalidKey, "one reason"))
        #expect(a.description.contains("weakKey") && a.description.contains("one reason"))
        #expect(a.code.description == "weakKey")
    }
}
