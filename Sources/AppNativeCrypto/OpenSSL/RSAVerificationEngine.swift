internal import CAppNativeOpenSSL

/// How `RSAPublicKey` verifies signatures.
enum RSAVerificationEngine: Sendable {
    /// `RSAPublicOperation`: OpenSSL's bignum Montgomery products directly, 1.22–1.25 times as
    /// fast as `EVP_PKEY_verify` (docs/benchmarks.md), but outside OpenSSL's providers.
    case montgomery
    /// `EVP_PKEY_verify` through OpenSSL's providers (`SignatureContextPool`).
    case provider

    /// `provider` when OpenSSL's default properties ask for FIPS (`default_properties = fips=yes`
    /// in `openssl.cnf`, or `EVP_default_properties_enable_fips`), so that a FIPS deployment
    /// verifies with its validated module; `montgomery` otherwise. Read once, at the first key.
    static let `default`: RSAVerificationEngine =
        EVP_default_properties_is_fips_enabled(nil) == 1 ? .provider : .montgomery
}
