import AppNativeJSON
import AppNativeModels
import Testing

/// Parses a JSON literal written in a test; a typo in the test is a test failure, not a skip.
func json(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue {
    do {
        return try JSONParser().parse(text)
    } catch {
        Issue.record("test JSON does not parse: \(error)", sourceLocation: sourceLocation)
        return .null
    }
}

/// The issues decoding `value` as `Model` reports; empty when it decodes.
func issues<Model: ModelDecodable>(_ type: Model.Type, _ value: JSONValue) -> [ValidationIssue] {
    do {
        _ = try Model(json: value)
        return []
    } catch {
        return error.issues
    }
}

/// The decoding error, or `nil` when `value` is valid.
func modelError<Model: ModelDecodable>(_ type: Model.Type, _ value: JSONValue) -> ModelError? {
    do {
        _ = try Model(json: value)
        return nil
    } catch {
        return error
    }
}

/// One validation case: a named input and what must come out.
struct RuleCase: Sendable, CustomTestStringConvertible {
    enum Verdict: Sendable {
        case valid
        /// An `I` rule: invalid, at `path`.
        case invalid([PathComponent])
        /// An `L` rule: too large, at `path`.
        case tooLarge([PathComponent])
    }

    let name: String
    let input: String
    let verdict: Verdict

    init(_ name: String, _ input: String, _ verdict: Verdict) {
        self.name = name
        self.input = input
        self.verdict = verdict
    }

    var testDescription: String { name }

    /// Checks `Model` against this case; every failure message names the case.
    func check<Model: ModelDecodable>(_ type: Model.Type, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = modelError(Model.self, json(input, sourceLocation: sourceLocation))
        switch verdict {
        case .valid:
            #expect(error == nil, "\(name): expected valid, got \(error?.issues.map(\.description) ?? [])",
                sourceLocation: sourceLocation)
        case .invalid(let path), .tooLarge(let path):
            let isLimit = if case .tooLarge = verdict { true } else { false }
            guard let error else {
                Issue.record("\(name): expected \(isLimit ? "tooLarge" : "invalid"), but it decoded", sourceLocation: sourceLocation)
                return
            }
            let atPath = error.issues.filter { $0.path == path }
            #expect(!atPath.isEmpty, "\(name): no issue at \(path); got \(error.issues.map(\.description))",
                sourceLocation: sourceLocation)
            #expect(atPath.allSatisfy { $0.kind == (isLimit ? .tooLarge : .invalid) },
                "\(name): wrong kind at \(path); got \(error.issues.map(\.description))", sourceLocation: sourceLocation)
            #expect(error.isTooLarge == isLimit,
                "\(name): isTooLarge should be \(isLimit); got \(error.issues.map(\.description))", sourceLocation: sourceLocation)
        }
    }
}

/// Numeric-aware deep equality: numbers compare by value (`12` = `12.0`), as the fixtures README asks.
func numericallyEqual(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)): return x.double == y.double
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(numericallyEqual)
    case (.object(let x), .object(let y)):
        return x.count == y.count && x.allSatisfy { member in y[member.key].map { numericallyEqual(member.value, $0) } ?? false }
    default: return a == b
    }
}

/// A JSON array of `count` copies of `element`, as text.
func repeated(_ element: String, _ count: Int) -> String {
    "[" + Array(repeating: element, count: count).joined(separator: ",") + "]"
}

/// `count` fields with ids `f0…`, as a JSON array text.
func fieldsJSON(_ count: Int, extra: String = "") -> String {
    "[" + (0..<count).map { #"{"id":"f\#($0)"\#(extra)}"# }.joined(separator: ",") + "]"
}
