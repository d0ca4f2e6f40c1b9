import AppNativeJSON

/// The strict JSON parser on arbitrary bytes. Besides not crashing:
/// - a value it accepts serializes to text it accepts again as the same value (plain and with
///   sorted keys);
/// - for well-formed UTF-8 input, parsing the bytes and parsing the same text as a `String`
///   reach the same verdict (value, or error code).
enum JSONHarness {
    static let parser = JSONParser()

    static func run(_ input: UnsafeRawBufferPointer) {
        let verdict = Result { () throws(JSONError) -> JSONValue in try parser.parse(input) }
        if let text = String(validating: input, as: UTF8.self) {
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

/// `precondition` that also reports its message in optimized builds (which drop it), so a crash
/// found by libFuzzer explains itself in the log.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

func failCheck(_ message: @autoclosure () -> String) -> Never {
    fatalError(message())
}
