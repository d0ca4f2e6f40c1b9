import AppNativeTesting
import Testing
import Foundation

/// The request vectors (AppNativeTesting's one loader), with what this target pins.
typealias RequestVector = HTTPRequestVector

extension HTTPRequestVector {
    /// The verdict this gateway reaches: the file's `verdict`, or the alternative pinned in
    /// `pinnedVerdicts` (documented in Fixtures/vectors/http1/SOURCE.md).
    var pinnedVerdict: String { RequestVector.pinnedVerdicts[id] ?? verdict }

    /// Cases where the gateway picks one of `alsoAcceptable` instead of `verdict`. A choice
    /// added here must be listed in SOURCE.md.
    static let pinnedVerdicts: [String: String] = [
        // Gateway policy: the Origin rule and the logs read Host, so a target naming another
        // authority is refused rather than forwarded for the target's host.
        "target-absolute-form-host-mismatch": "reject-400",
    ]

    /// The assumed limits of the vector file.
    static let limits = HTTPLimitsValues(
        maxRequestLineBytes: 8192,
        maxHeaderBytes: 65536,
        maxHeaderCount: 100,
        maxBodyBytes: 10 * 1024 * 1024
    )

    static func all() throws -> [RequestVector] {
        try all(bundle: .module)
    }
}

/// Plain limit numbers, so this file does not import the module under test.
struct HTTPLimitsValues: Sendable {
    let maxRequestLineBytes: Int
    let maxHeaderBytes: Int
    let maxHeaderCount: Int
    let maxBodyBytes: UInt64
}
