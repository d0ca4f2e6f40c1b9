internal import AppNativeJSON

/// Collects issues while one value is decoded, so every problem is reported in one pass.
///
/// A class because nested decoders share it; it never escapes one decoding call.
final class DecodingContext {
    private(set) var issues: [ValidationIssue] = []
    /// Nesting of native surfaces being decoded; rules that only apply to native forms and
    /// content (options limits, `select` needs options) look at it.
    var surfaceDepth = 0
    /// Block nesting inside the current surface: top level = 1 (`contract/models.md` §3.4).
    var blockDepth = 0

    var issueCount: Int { issues.count }

    func report(
        _ path: [PathComponent], _ type: String, _ message: String, kind: ValidationIssue.Kind = .invalid,
        input: JSONValue? = nil, context: JSONValue? = nil
    ) {
        issues.append(ValidationIssue(path: path, message: message, type: type, kind: kind, input: input, context: context))
    }

    func tooLarge(_ path: [PathComponent], _ message: String, input: JSONValue? = nil) {
        report(path, "too_large", message, kind: .tooLarge, input: input)
    }

    func invalid(_ path: [PathComponent], _ message: String, input: JSONValue? = nil) {
        report(path, "value_error", "Value error, \(message)", input: input)
    }
}
