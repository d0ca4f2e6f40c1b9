import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import Synchronization

/// Signs and caches the ES256 provider token of one key (`{"alg":"ES256","kid":…}`,
/// `{"iss":team,"iat":now}`), following `ProviderTokenMachine`.
final class ProviderTokenSource: Sendable {
    private let key: P256SigningKey
    private let keyID: String
    private let teamID: String
    private let timeSource: any TimeSource
    private let machine = Locked(ProviderTokenMachine())
    /// Serialises signers only, so a burst of first sends signs once; the state lock is never
    /// held while signing, and senders with a valid token never take this one.
    private let signing = Mutex(())

    init(key: P256SigningKey, keyID: String, teamID: String, timeSource: any TimeSource) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.timeSource = timeSource
    }

    /// The token to send now.
    /// - Throws: `.signingFailed`.
    func token() throws(APNsError) -> String {
        if case .use(let token) = machine.withLock({ $0.next(at: timeSource.monotonic) }) { return token }
        return try signing.withLock { _ throws(APNsError) -> String in
            let now = timeSource.monotonic
            if case .use(let token) = machine.withLock({ $0.next(at: now) }) { return token }
            let claims: JSONObject = [
                "iss": .string(teamID), "iat": .number(JSONNumber(Int64(timeSource.wallSeconds.rounded(.towardZero)))),
            ]
            let token: String
            do {
                token = try JWTSigner.sign(claims, with: .p256(key, keyID: keyID), includesType: false)
            } catch {
                throw APNsError(.signingFailed, reason: "provider token signing failed (OpenSSL)")
            }
            machine.withLock { $0.signed(token, at: now) }
            return token
        }
    }

    /// Apple refused `token`; see `ProviderTokenMachine.rejected(_:)`.
    func reject(_ token: String) {
        machine.withLock { $0.rejected(token) }
    }

    /// The current token's age in seconds (0 before the first).
    var ageSeconds: Double {
        machine.withLock { $0.age(at: timeSource.monotonic) }?.seconds ?? 0
    }

    /// Signatures made so far.
    var signatureCount: Int { machine.withLock { $0.signatureCount } }
}
