import AppNativeCrypto

// Unsafe: the credential's bytes are borrowed (`withUTF8`, `withUnsafeBytes`) for the call that hashes
// or compares them, and never kept; the stored key is a String or a digest.

/// The key of a verified-credential cache entry (tokens and session cookies): the credential
/// itself, or its SHA-256 when it is longer than `exactLimit` bytes.
///
/// Equality compares every byte, so a hit means exactly a credential that was verified before.
/// Hashing reads only the length and the last 32 bytes: a JWS ends in its signature or MAC, which
/// differs between any two credentials worth caching, and Swift's per-process seeded hasher keeps
/// collisions from being crafted. Only verified credentials are ever inserted. A hit then costs a
/// comparison of bytes the request already holds, not a SHA-256 of the whole credential on every
/// request.
///
/// The price is memory and exposure: the caches hold the credentials themselves (as Envoy's JWT
/// cache does), at most `capacity × exactLimit` bytes; the same bytes already sit in every request
/// buffer, and the process never writes them anywhere. Longer credentials are rare (Entra caps
/// group claims) and keep the digest, so a full cache stays bounded.
struct CredentialKey: Hashable, Sendable {
    /// Credentials up to this many UTF-8 bytes are their own key.
    static let exactLimit = 4096

    private enum Storage: Sendable {
        case exact(String)
        case digest(SHA256Digest)
    }

    private let storage: Storage

    init(_ credential: String) {
        storage = credential.utf8.count <= Self.exactLimit ? .exact(credential) : .digest(SHA256.digest(credential))
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The key of the credential in `bytes`, equal to `CredentialKey(String(decoding: bytes, as:
    /// UTF8.self))`. It owns a copy of the bytes, so nothing about its lifetime needs care.
    init(utf8 bytes: UnsafeRawBufferPointer) {
        storage = unsafe bytes.count <= Self.exactLimit ? .exact(String(decoding: bytes, as: UTF8.self)) : .digest(SHA256.digest(bytes))
    }

    /// The credential's bytes when the key holds them (not for a digest key).
    private func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        switch storage {
        case .exact(let credential):
            var credential = credential
            return credential.withUTF8 { unsafe body(UnsafeRawBufferPointer($0)) }
        case .digest:
            return nil
        }
    }

    static func == (lhs: CredentialKey, rhs: CredentialKey) -> Bool {
        if case .digest(let left) = lhs.storage {
            if case .digest(let right) = rhs.storage { return left == right }
            return false
        }
        return unsafe lhs.withBytes { left in unsafe rhs.withBytes { right in unsafe haveSameBytes(left, right) } ?? false } ?? false
    }

    func hash(into hasher: inout Hasher) {
        if case .digest(let digest) = storage {
            hasher.combine(digest)
            return
        }
        _ = unsafe withBytes { bytes in
            hasher.combine(bytes.count)
            unsafe hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes.suffix(32)))
        }
    }
}
