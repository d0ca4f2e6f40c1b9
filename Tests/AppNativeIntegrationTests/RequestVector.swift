import AppNativeTesting
import Foundation
import Testing

/// The request vectors (AppNativeTesting's one loader, reading the checkout: this target has no
/// resource bundle), with the verdicts the gateway as a proxy pins.
typealias RequestVector = HTTPRequestVector

extension HTTPRequestVector {
    /// The verdict the gateway reaches: the file's `verdict`, or the alternative pinned in
    /// `gatewayVerdicts`.
    var gatewayVerdict: String { Self.gatewayVerdicts[id] ?? verdict }

    /// Cases where the gateway, as a proxy, reaches one of `alsoAcceptable` instead of
    /// `verdict` (the parser alone reaches every `verdict`, see AppNativeHTTPTests). Each choice
    /// is one the file allows; `vectorFile()` checks that.
    static let gatewayVerdicts: [String: String] = [
        // RFC 9112 §3.2.2: the gateway forwards an absolute-form target in origin-form
        // (`/a?b=1`) with Host generated from the target's authority, which the case's
        // `forwarding.note` allows; it is therefore not forwarded as is.
        "target-absolute-form": "must-not-forward-as-is",
        // Gateway policy: a target naming another authority than Host is refused (400).
        "target-absolute-form-host-mismatch": "reject-400",
    ]

    static func all() throws -> [RequestVector] {
        try allFromRepository()
    }
}
