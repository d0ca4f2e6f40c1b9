/// When to sign a new APNs provider token (contract/apns.md §2, §5): a value-type state machine the
/// token source drives and tests step through with a manual clock (docs/style.md §5).
///
/// Apple refuses tokens older than 60 minutes and answers `TooManyProviderTokenUpdates` when a
/// key's token changes more often than every 20 minutes. So a token is reused for 50 minutes,
/// and even after Apple rejected it (`ExpiredProviderToken`) a new one is signed only once the
/// current one is 20 minutes old.
struct ProviderTokenMachine: Sendable {
    /// How long a token is reused.
    static let reuseInterval: Duration = .seconds(50 * 60)
    /// The shortest time between two signatures for one key.
    static let minimumSigningInterval: Duration = .seconds(20 * 60)

    enum Action: Equatable, Sendable {
        /// Send with this token.
        case use(String)
        /// Sign a new token now, then report it with `signed(_:at:)`.
        case sign
    }

    private(set) var token: String?
    private(set) var signedAt: Duration?
    private(set) var isRejected = false
    /// Signatures made; for tests and the token-age metric.
    private(set) var signatureCount = 0

    /// What to do for a send at monotonic time `now`.
    func next(at now: Duration) -> Action {
        guard let token, let signedAt else { return .sign }
        let age = now - signedAt
        if age >= Self.reuseInterval { return .sign }
        if isRejected, age >= Self.minimumSigningInterval { return .sign }
        return .use(token)
    }

    /// Records a new token.
    mutating func signed(_ token: String, at now: Duration) {
        self.token = token
        signedAt = now
        isRejected = false
        signatureCount += 1
    }

    /// Apple rejected `token` as expired or invalid: replace it as soon as the 20-minute rule allows.
    /// A rejection of an older token (a response that raced a new signature) changes nothing.
    mutating func rejected(_ rejectedToken: String) {
        if rejectedToken == token { isRejected = true }
    }

    /// The current token's age, if there is one.
    func age(at now: Duration) -> Duration? {
        signedAt.map { now - $0 }
    }
}
