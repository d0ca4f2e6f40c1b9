/// Secret key material in memory this object owns and wipes.
///
/// The bytes live in one heap allocation that is never copied by Swift's value semantics and
/// is overwritten with `OPENSSL_cleanse` before it is freed (docs/style.md §2). Reading the bytes is
/// an explicit, greppable act (`withUnsafeBytes`); printing, interpolating or mirroring the
/// object shows `[redacted]`.
///
/// The initialisers copy their input. `init(_:)` cannot wipe the caller's array (it is a value
/// the caller still owns); use `init(zeroing:)` to have the source wiped after the copy.
public final class SecretBytes: @unchecked Sendable {
    // Invariant: `storage` is written only inside init and only read afterwards, so sharing the
    // object across threads is safe; deinit runs once no reference remains.
    private let storage: UnsafeMutableRawBufferPointer
    /// The number of secret bytes.
    public let count: Int

    /// Allocates `count` bytes (at least one, so the base address is never nil) and lets `body`
    /// write them. The storage is wiped and freed if `body` throws.
    init<E: Error>(count: Int, initializingWith body: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        precondition(count >= 0, "negative secret length")
        let allocation = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        allocation.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try body(UnsafeMutableRawBufferPointer(rebasing: allocation[0..<count]))
        } catch {
            OpenSSLMemory.cleanse(allocation)
            allocation.deallocate()
            throw error
        }
        storage = allocation
        self.count = count
    }

    /// Copies `bytes`. The caller's array is left as it is; prefer `init(zeroing:)` when the
    /// caller holds the only copy.
    public convenience init(_ bytes: [UInt8]) {
        self.init(count: bytes.count) { destination in
            destination.copyBytes(from: bytes)
        }
    }

    /// Copies `bytes`, then overwrites the caller's array with zeros.
    public convenience init(zeroing bytes: inout [UInt8]) {
        self.init(bytes)
        bytes.withUnsafeMutableBytes { OpenSSLMemory.cleanse($0) }
    }

    /// Copies the UTF-8 encoding of `string`. Swift strings cannot be wiped, so the original
    /// text stays in memory until Swift releases it; use this for configuration values.
    public convenience init(utf8 string: String) {
        var string = string
        let count = string.utf8.count
        self.init(count: count) { destination in
            string.withUTF8 { source in
                destination.copyMemory(from: UnsafeRawBufferPointer(source))
            }
        }
    }

    /// `count` bytes from OpenSSL's CSPRNG (`RAND_bytes`), written straight into wiped storage.
    public static func random(count: Int) -> SecretBytes {
        SecretBytes(count: count) { destination in
            OpenSSLMemory.fillRandom(destination)
        }
    }

    deinit {
        OpenSSLMemory.cleanse(storage)
        storage.deallocate()
    }

    /// Lends the secret bytes to `body`. The buffer must not escape the closure.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }
}

extension SecretBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "[redacted]" }
    public var debugDescription: String { "[redacted]" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
