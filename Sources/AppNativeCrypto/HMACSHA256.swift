import AppNativeCore

// Unsafe (OpenSSL EVP_MAC): the key and message are borrowed for the call with their lengths; the MAC
// is written into a buffer of exactly `byteCount` bytes.

/// HMAC-SHA-256 (RFC 2104, FIPS 198-1) with a key set once and reused for many messages.
///
/// The key is absorbed once into a keyed OpenSSL context (inner and outer pad states already
/// hashed). Calls take a keyed context from a small pool, use it, restart it (which only copies
/// the keyed inner state back, no key schedule) and return it; the pool only grows when calls
/// overlap, up to `maximumPooledContexts`. One instance is safe to share between threads.
public final class HMACSHA256: Sendable {
    /// Keyed once in init and afterwards only read (`EVP_MAC_CTX_dup` takes a const source).
    private let template: EVPMACContext
    /// Idle keyed contexts; each is used by one call at a time, outside the lock.
    private let idle: Locked<[EVPMACContext]>
    private static let maximumPooledContexts = 16

    /// The MAC length in bytes.
    public static let byteCount = 32

    /// - Parameter key: the MAC key. Any non-empty length is accepted here (RFC 2104 §3); the
    ///   JWT layer enforces the 256-bit minimum that RFC 7518 §3.2 sets for HS256.
    /// - Throws: `CryptoError.weakKey` for an empty key, `.invalidKey` if OpenSSL refuses it.
    public init(key: SecretBytes) throws(CryptoError) {
        guard key.count > 0 else { throw CryptoError(.weakKey, "HMAC key is empty") }
        guard let context = unsafe key.withUnsafeBytes({ unsafe EVPMACContext.hmacSHA256(key: $0) }) else {
            throw CryptoError(.invalidKey, "OpenSSL refused the HMAC-SHA256 key")
        }
        template = context
        idle = Locked([])
    }

    /// The 32-byte HMAC-SHA-256 of `message`.
    public func authenticationCode(for message: UnsafeRawBufferPointer) -> [UInt8] {
        unsafe [UInt8](unsafeUninitializedCapacity: Self.byteCount) { buffer, initialized in
            unsafe compute(message, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = Self.byteCount
        }
    }

    /// The 32-byte HMAC-SHA-256 of `message`.
    public func authenticationCode(for message: [UInt8]) -> [UInt8] {
        unsafe message.withUnsafeBytes { unsafe authenticationCode(for: $0) }
    }

    /// Whether `code` is the full 32-byte HMAC of `message`. The length is checked first; the
    /// bytes are compared in constant time. Truncated MACs are refused.
    public func isValidAuthenticationCode(_ code: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer) -> Bool {
        guard code.count == Self.byteCount else { return false }
        return unsafe withUnsafeTemporaryAllocation(byteCount: Self.byteCount, alignment: 8) { expected in
            unsafe compute(message, into: expected)
            defer { unsafe OpenSSLMemory.cleanse(expected) }
            return unsafe ConstantTime.equals(UnsafeRawBufferPointer(expected), code)
        }
    }

    /// Whether `code` is the full 32-byte HMAC of `message` (see the buffer overload).
    public func isValidAuthenticationCode(_ code: [UInt8], for message: [UInt8]) -> Bool {
        unsafe code.withUnsafeBytes { code in
            unsafe message.withUnsafeBytes { message in unsafe isValidAuthenticationCode(code, for: message) }
        }
    }

    private func compute(_ message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        // A keyed HMAC context fails only when OpenSSL cannot allocate: no message can cause it,
        // and a MAC that was not computed must never be compared or sent.
        guard let context = idle.withLock({ $0.popLast() }) ?? template.duplicate(),
            let written = unsafe context.authenticate(message, into: output)
        else {
            preconditionFailure("OpenSSL could not compute HMAC-SHA256 on a keyed context (out of memory)")
        }
        precondition(written == Self.byteCount, "HMAC-SHA256 produced \(written) bytes")
        idle.withLock { contexts in
            if contexts.count < Self.maximumPooledContexts { contexts.append(context) }
        }
    }
}
