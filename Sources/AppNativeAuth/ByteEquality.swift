import Glibc

// Unsafe: memcmp reads `a.count` bytes of each buffer after the counts were found equal; both are
// borrowed for the call.

/// Whether two buffers hold the same bytes, with `memcmp`: for looking a presented credential or
/// claim up among cached or configured values (a cache only reaches it for keys whose length
/// and signature tail already matched). Not constant-time: never for checking a MAC or signature,
/// which goes through `HMACSHA256.isValidAuthenticationCode` and the EVP verifiers.
func haveSameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    guard let left = a.baseAddress, let right = b.baseAddress else { return true }
    return unsafe memcmp(left, right, a.count) == 0
}
