import AppNativeHTTP
import Testing

/// `FieldNamePatterns`: the name matching behind the proxy's removal of forged fields.
@Suite struct FieldNamePatternsTests {
    let patterns = FieldNamePatterns(["X-Remote-User", "X-AppNative-", "Auth-User"])

    @Test(arguments: [
        "X-Remote-User", "x-remote-user", "X_REMOTE_USER", "X-Remote-User-Id", "x_remote_user_id",
        "X-AppNative-", "X-AppNative-User-Id", "x-appnative-anything", "X_AppNative_Identity", "Auth-User",
    ])
    func matches(name: String) {
        #expect(patterns.matches(name))
    }

    @Test(arguments: ["X-Remote-Username", "X-Remote-Use", "X-Remote", "X-AppNative", "XAppNative-", "Auth-Users", "", "Host", "-"])
    func doesNotMatch(name: String) {
        #expect(!patterns.matches(name))
    }

    /// Every single-byte name and every first byte: no pattern table lookup can go out of range.
    @Test func everyFirstByte() {
        for byte in UInt8.min...UInt8.max {
            let name = String(decoding: [byte], as: UTF8.self)
            #expect(!patterns.matches(name))
            #expect(!patterns.matches(name + "-Remote-Userx"))
        }
    }

    @Test func removesMatchingFieldsAndKeepsTheRestInOrder() {
        var headers: HTTPHeaders = [:]
        headers.add(name: "Host", value: "a")
        headers.add(name: "X-Remote-User", value: "mallory")
        headers.add(name: "Accept", value: "*/*")
        headers.add(name: "x-appnative-user-id", value: "forged")
        headers.add(name: "X-Remote-Username", value: "kept")
        patterns.remove(from: &headers)
        #expect(headers.map(\.name) == ["Host", "Accept", "X-Remote-Username"])
        var untouched = headers
        FieldNamePatterns([]).remove(from: &untouched)
        #expect(untouched == headers)
    }
}
