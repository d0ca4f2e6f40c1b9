/// Secret key material in memory this object owns and wipes.
///
/// The bytes live in one heap allocation that is never copied by Swift's value semantics and
/// is overwritten with `OPENSSL_cleanse` before it is freed (docs/style.md §2). Reading the bytes is
/// an explicit, greppable act (`withUnsafeBytes`); printing, interpolating or mirroring the
/// object shows `[redacted]`.
///
/// The initialisers copy their input. `init(_:)` cannot wipe the caller's array (it is a value
/// the caller still owns); use `init(zeroing:)` to have the source wiped after the copy.
@safe
public final class SecretBytes: @unchecked Sendable {
    // @safe: `storage` is allocated in init with exactly `count` bytes, lent only inside
    // `withUnsafeBytes`, and cleansed and freed once in deinit.
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
        unsafe allocation.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            unsafe try body(UnsafeMutableRawBufferPointer(rebasing: allocation[0..<count]))
        } catch {
            unsafe OpenSSLMemory.cleanse(allocation)
            unsafe allocation.deallocate()
            throw error
        }
        unsafe storage = allocation
        self.count = count
    }

    /// Copies `bytes`. The caller's array is left as it is; prefer `init(zeroing:)` when the
    /// caller holds the only copy.
    public convenience init(_ bytes: [UInt8]) {
        unsafe self.init(count: bytes.count) { destination in
            unsafe destination.copyBytes(from: bytes)
        }
    }

    /// Copies `bytes`, then overwrites the caller's array with zeros.
    public convenience init(zeroing bytes: inout [UInt8]) {
        self.init(bytes)
        unsafe bytes.withUnsafeMutableBytes { unsafe OpenSSLMemory.cleanse($0) }
    }

    /// Copies the UTF-8 encoding of `string`. Swift strings cannot be wiped, so the original
    /// text stays in memory until Swift releases it; use this for configuration values.
    public convenience init(utf8 string: String) {
        var string = string
        let count = string.utf8.count
        unsafe self.init(count: count) { destination in
            string.withUTF8 { source in
                unsafe destination.copyMemory(from: UnsafeRawBufferPointer(source))
            }
        }
    }

    /// `count` bytes from OpenSSL's CSPRNG (`RAND_bytes`), written straight into wiped storage.
    public static func random(count: Int) -> SecretBytes {
        unsafe SecretBytes(count: count) { destination in
            unsafe OpenSSLMemory.fillRandom(destination)
        }
    }

    deinit {
        unsafe OpenSSLMemory.cleanse(storage)
        unsafe storage.deallocate()
    }

    /// Lends the secret bytes to `body`. The buffer must not escape the closure.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        unsafe try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }
}

extension SecretBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "[redacted]" }
    public var debugDescription: String { "[redacted]" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
