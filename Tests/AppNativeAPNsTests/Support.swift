import AppNativeAPNs
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// Parses contract JSON text for comparisons (member order is not significant; numbers compare
/// by literal, so `1.0` and `1` differ as they do on the wire).
func json(_ text: String) throws -> JSONObject {
    try #require(try JSONParser().parse(text).objectValue)
}

/// The committed APNs test key (keys/test/apns-test.p8).
func testKeyPEM() throws -> String {
    try String(contentsOfFile: ProcessRunner.repositoryRoot() + "/keys/test/apns-test.p8", encoding: .utf8)
}

/// A configuration with the test key.
func testConfiguration(
    keyID: String = FakeAPNsPeer.keyID,
    teamID: String = FakeAPNsPeer.teamID,
    bundleID: String = FakeAPNsPeer.bundleID,
    usesSandbox: Bool = true,
    baseURL: String? = nil,
    caFile: String? = nil,
    key: String? = nil
) throws -> APNsConfiguration {
    try APNsConfiguration(
        key: try key ?? testKeyPEM(), keyID: keyID, teamID: teamID, bundleID: bundleID, usesSandbox: usesSandbox,
        baseURL: baseURL, caFile: caFile)
}

/// Runs `body` and returns the APNsError it threw, or nil (also when it threw something else,
/// which then fails the expectation that called this).
func apnsError<T>(_ body: () throws -> T) -> APNsError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? APNsError
    }
}

func apnsError<T>(_ body: () async throws -> T) async -> APNsError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? APNsError
    }
}
