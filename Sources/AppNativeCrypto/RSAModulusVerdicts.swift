import AppNativeCore

/// OpenSSL's verdict on each RSA modulus this process has validated, so that the same key bytes
/// always get the same answer.
///
/// OpenSSL's SP 800-56B public-key check (`EVP_PKEY_public_check`) ends with an enhanced
/// Miller-Rabin test on random bases. For an honest modulus (two large primes) every base gives
/// the same answer, but for a modulus with a smallish prime factor above the check's
/// trial-division bound, or one built so that n − 1 shares a large factor with p − 1, a random
/// base reveals the factor only sometimes: the same JWKS would be accepted on one refresh and
/// refused on the next, and tokens would flip between valid and invalid. The first verdict for
/// a modulus is therefore kept and reused; a verdict reached concurrently by another thread
/// loses to the one recorded first.
///
/// The table is bounded (`capacity` moduli, the oldest forgotten first), so a key server that
/// cycles through moduli cannot grow it; only a modulus forgotten that way is checked afresh.
/// The exponent is not part of the key: `RSAKeyPolicy` admits only 65537.
enum RSAModulusVerdicts {
    static let capacity = 4096

    private struct Table {
        var verdicts: [[UInt8]: Bool] = [:]
        /// Insertion order, for forgetting the oldest.
        var order: [[UInt8]] = []
        var oldest = 0
    }

    private static let table = Locked(Table())

    /// OpenSSL's verdict on `key` (whose modulus is `modulus`), the recorded one if there is one.
    static func isValid(_ key: EVPPKey, modulus: [UInt8]) -> Bool {
        if let known = table.withLock({ $0.verdicts[modulus] }) { return known }
        // The check costs milliseconds: it runs outside the lock.
        let verdict = key.isPublicKeyValid(quick: false)
        return table.withLock { table in
            if let known = table.verdicts[modulus] { return known }
            if table.order.count - table.oldest >= capacity {
                table.verdicts.removeValue(forKey: table.order[table.oldest])
                table.oldest += 1
                if table.oldest >= capacity {
                    table.order.removeFirst(table.oldest)
                    table.oldest = 0
                }
            }
            table.verdicts[modulus] = verdict
            table.order.append(modulus)
            return verdict
        }
    }
}
