import AppNativeCrypto

/// The key of a verified-credential cache entry (tokens and session cookies): the credential
/// itself, or its SHA-256 when it is longer than `exactLimit` bytes.
///
/// Equality compares every byte, so a hit means exactly a credential that was verified before.
/// Hashing reads only the length and the last 32 bytes: a JWS ends in its signature or MAC, which
/// differs between any two credentials worth caching, and Swift's per-process seeded hasher keeps
/// collisions from being crafted. Only verified credentials are ever inserted. A hit then costs
/// about 30 ns where SHA-256 of a 1 KB token cost about 1 µs on every request.
///
/// The price is memory and exposure: the caches hold the credentials themselves (as Envoy's JWT
/// cache does), at most `capacity × exactLimit` bytes; the same bytes already sit in every request
/// buffer, and the process never writes them anywhere. Longer credentials are rare (Entra caps
/// group claims) and keep the digest, so a full cache stays bounded.
struct CredentialKey: Hashable, Sendable {
    /// Credentials up to this many UTF-8 bytes are their own key.
    static let exactLimit = 4096

    private enum Storage: Hashable, Sendable {
        case exact(String)
        case digest(SHA256Digest)
    }

    private let storage: Storage

    init(_ credential: String) {
        storage = credential.utf8.count <= Self.exactLimit ? .exact(credential) : .digest(SHA256.digest(credential))
    }

    func hash(into hasher: inout Hasher) {
        switch storage {
        case .exact(let credential):
            let combineTail = { (bytes: UnsafeBufferPointer<UInt8>, hasher: inout Hasher) in
                hasher.combine(bytes.count)
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(32))))
            }
            // Native strings are contiguous; anything else hashes the same bytes from a copy.
            if credential.utf8.withContiguousStorageIfAvailable({ combineTail($0, &hasher) }) == nil {
                Array(credential.utf8).withUnsafeBufferPointer { combineTail($0, &hasher) }
            }
        case .digest(let digest):
            hasher.combine(digest)
        }
    }
}
