import AppNativeJSON

// Unsafe (harness): the input is libFuzzer's buffer, valid for the `run` call and read within its
// count; buffers handed to the parsers are borrowed for their call and copied before they are kept.

/// The strict JSON parser on arbitrary bytes. Besides not crashing:
/// - a value it accepts serializes to text it accepts again as the same value (plain and with
///   sorted keys);
/// - for well-formed UTF-8 input, parsing the bytes and parsing the same text as a `String`
///   reach the same verdict (value, or error code);
/// - `JSONObjectView` (the JWT claims reader) reaches the parser's verdict: the same error code,
///   `nil` for a valid non-object, and for an object the same members, each member read alike.
enum JSONHarness {
    static let parser = JSONParser()

    static func run(_ input: UnsafeRawBufferPointer) {
        let verdict = Result { () throws(JSONError) -> JSONValue in unsafe try parser.parse(input) }
        if let text = unsafe String(validating: input, as: UTF8.self) {
            let fromString = Result { () throws(JSONError) -> JSONValue in try parser.parse(text) }
            switch (verdict, fromString) {
            case (.success(let a), .success(let b)):
                check(a == b, "bytes and String parse to different values")
            case (.failure(let a), .failure(let b)):
                check(a.code == b.code, "bytes fail with \(a.code), String with \(b.code)")
            default:
                failCheck("bytes and String disagree: \(verdict) vs \(fromString)")
            }
        }
        unsafe checkObjectView(input, against: verdict)
        guard case .success(let value) = verdict else { return }
        for sortingKeys in [false, true] {
            let serialized = JSONSerializer.serialize(value, sortingKeys: sortingKeys)
            do throws(JSONError) {
                let reparsed = try parser.parse(serialized)
                check(reparsed == value, "serialize-parse round trip changes the value (sortingKeys \(sortingKeys))")
            } catch {
                failCheck("serialized output is refused: \(error) (sortingKeys \(sortingKeys))")
            }
        }
    }
}

extension JSONHarness {
    static func checkObjectView(_ input: UnsafeRawBufferPointer, against verdict: Result<JSONValue, JSONError>) {
        let viewed = Result { () throws(JSONError) -> JSONObjectView? in unsafe try JSONObjectView.parse(input) }
        switch (verdict, viewed) {
        case (.failure(let parsed), .failure(let view)):
            check(parsed.code == view.code, "parser fails with \(parsed.code), the object view with \(view.code)")
        case (.success(let value), .success(let view)):
            guard let object = value.objectValue else {
                check(view == nil, "the object view accepted a non-object")
                return
            }
            guard let view else { failCheck("the object view refused an object the parser read") }
            check(view.count == object.count, "the object view counts \(view.count) members, the parser \(object.count)")
            check(view.object == object, "the object view's object differs from the parser's")
            for (name, member) in object {
                check(view[name] == member, "member \(name.debugDescription) reads differently")
                check(view.string(name) == member.stringValue, "string member \(name.debugDescription) reads differently")
                check(view.number(name) == member.numberValue, "number member \(name.debugDescription) reads differently")
            }
        default:
            failCheck("parser and object view disagree: \(verdict) vs \(viewed)")
        }
    }
}

/// `precondition` that also reports its message in optimized builds (which drop it), so a crash
/// found by libFuzzer explains itself in the log.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

func failCheck(_ message: @autoclosure () -> String) -> Never {
    fatalError(message())
}
