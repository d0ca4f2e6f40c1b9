@testable import AppNativeAPNs
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

@Suite("Retry policy")
struct RetryPolicyTests {
    let policy = APNsRetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(100), maxDelay: .seconds(1))

    @Test("exponential, capped, with equal jitter between half and the full delay")
    func schedule() {
        #expect(policy.delay(afterAttempt: 1, jitter: 1) == .milliseconds(100))
        #expect(policy.delay(afterAttempt: 2, jitter: 1) == .milliseconds(200))
        #expect(policy.delay(afterAttempt: 3, jitter: 1) == .milliseconds(400))
        #expect(policy.delay(afterAttempt: 4, jitter: 1) == .milliseconds(800))
        #expect(policy.delay(afterAttempt: 5, jitter: 1) == .seconds(1))
        #expect(policy.delay(afterAttempt: 60, jitter: 1) == .seconds(1))
        #expect(policy.delay(afterAttempt: 1, jitter: 0) == .milliseconds(50))
        #expect(policy.delay(afterAttempt: 3, jitter: 0.5) == .milliseconds(300))
        #expect(policy.delay(afterAttempt: 5, jitter: 0) == .milliseconds(500))
    }

    @Test("a lost connection and an unsent timeout are retried; a sent timeout, TLS and refused requests are not")
    func retryableTransportFailures() {
        func error(_ code: ClientError.Code, neverSent: Bool) -> ClientError {
            var error = ClientError(code, reason: "test")
            error.wasNeverSent = neverSent
            return error
        }
        #expect(APNsConnection.isRetryable(error(.transport, neverSent: false)))
        #expect(APNsConnection.isRetryable(error(.connectFailed, neverSent: true)))
        #expect(APNsConnection.isRetryable(error(.timeout, neverSent: true)))
        #expect(!APNsConnection.isRetryable(error(.timeout, neverSent: false)))
        #expect(!APNsConnection.isRetryable(error(.tlsFailed, neverSent: true)))
        #expect(!APNsConnection.isRetryable(error(.invalidRequest, neverSent: true)))
        #expect(!APNsConnection.isRetryable(error(.shutDown, neverSent: true)))
    }

    @Test("attempt budget")
    func budget() {
        #expect(policy.allowsRetry(afterAttempt: 4))
        #expect(!policy.allowsRetry(afterAttempt: 5))
        #expect(!APNsRetryPolicy(maxAttempts: 1).allowsRetry(afterAttempt: 1))
    }

    @Test("429, 500 and 503 are retried; other statuses are not", arguments: [200, 400, 403, 404, 405, 410, 413, 429, 500, 502, 503])
    func retryableStatuses(status: Int) {
        #expect(APNsRetryPolicy.isRetryable(status: status) == [429, 500, 503].contains(status))
    }
}

@Suite("Reasons")
struct ReasonTests {
    @Test("every Apple reason round-trips; unknown strings are kept")
    func vocabulary() {
        let names = [
            "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
            "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
            "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate", "BadCertificateEnvironment",
            "ExpiredProviderToken", "Forbidden", "InvalidProviderToken", "MissingProviderToken", "UnrelatedKeyIdInToken",
            "BadEnvironmentKeyInToken", "BadPath", "MethodNotAllowed", "Unregistered", "ExpiredToken", "PayloadTooLarge",
            "TooManyProviderTokenUpdates", "TooManyRequests", "InternalServerError", "ServiceUnavailable", "Shutdown",
        ]
        for name in names {
            let reason = APNsReason(name)
            #expect(reason.name == name)
            if case .unknown = reason { Issue.record("\(name) should be known") }
        }
        #expect(APNsReason("SomethingNew") == .unknown("SomethingNew"))
        #expect(APNsReason("SomethingNew").name == "SomethingNew")
    }

    @Test("only BadDeviceToken and Unregistered are permanent")
    func permanent() {
        #expect(APNsReason("BadDeviceToken").isPermanentlyInvalidToken)
        #expect(APNsReason("Unregistered").isPermanentlyInvalidToken)
        #expect(!APNsReason("ExpiredToken").isPermanentlyInvalidToken)
        #expect(!APNsReason("DeviceTokenNotForTopic").isPermanentlyInvalidToken)
        #expect(!APNsReason("TooManyRequests").isPermanentlyInvalidToken)
    }
}

@Suite("Credentials (contract/apns.md §3)")
struct ConfigurationTests {
    private func environment(_ overrides: [String: String?] = [:]) throws -> [String: String] {
        var environment = [
            "APNS_KEY": try testKeyPEM(), "APNS_KEY_ID": "KEY1234567", "APNS_TEAM_ID": "TEAM000001",
            "APNS_BUNDLE_ID": "com.example.env",
        ]
        for (name, value) in overrides { environment[name] = value }
        return environment
    }

    @Test("environment: sandbox by default; APNS_USE_SANDBOX read as every boolean setting, anything else refused")
    func sandboxFlag() throws {
        #expect(try APNsConfiguration.fromEnvironment(try environment()).usesSandbox)
        #expect(try APNsConfiguration.fromEnvironment(try environment()).endpoint == "https://api.sandbox.push.apple.com")
        let readings = [
            ("true", true), ("TRUE", true), ("True", true), ("1", true), ("yes", true), ("On", true), (" on ", true),
            ("false", false), ("FALSE", false), ("0", false), ("no", false), ("off", false), ("", true), ("  ", true),
        ]
        for (value, sandbox) in readings {
            let configuration = try APNsConfiguration.fromEnvironment(try environment(["APNS_USE_SANDBOX": value]))
            #expect(configuration.usesSandbox == sandbox, "APNS_USE_SANDBOX=\(value)")
        }
        let production = try APNsConfiguration.fromEnvironment(try environment(["APNS_USE_SANDBOX": "false"]))
        #expect(production.endpoint == "https://api.push.apple.com")
        for value in ["maybe", "2", "sandbox", "production", "t"] {
            let error = #expect(throws: APNsError.self) { try APNsConfiguration.fromEnvironment(try environment(["APNS_USE_SANDBOX": value])) }
            #expect(error?.code == .invalidConfiguration && error?.reason.contains("APNS_USE_SANDBOX") == true, "\(value)")
        }
    }

    @Test("environment: \\n escapes become newlines and surrounding space is trimmed")
    func escapedKey() throws {
        let escaped = "  " + (try testKeyPEM()).trimmingCharacters(in: .newlines).replacing("\n", with: "\\n") + "\\n  "
        let configuration = try APNsConfiguration.fromEnvironment(try environment(["APNS_KEY": escaped]))
        #expect(configuration.key.revealed == (try testKeyPEM()).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("environment: the ids are checked first, in one error naming all four variables")
    func missingIDs() throws {
        let error = apnsError { try APNsConfiguration.fromEnvironment(try environment(["APNS_TEAM_ID": nil, "APNS_KEY": nil])) }
        #expect(error?.code == .missingConfiguration)
        for name in ["APNS_KEY", "APNS_KEY_ID", "APNS_TEAM_ID", "APNS_BUNDLE_ID"] {
            #expect(error?.reason.contains(name) == true)
        }
        #expect(error?.reason.contains("missing: APNS_TEAM_ID") == true)
    }

    @Test("key: missing, a path, or not a P-256 key")
    func badKeys() throws {
        #expect(apnsError { try APNsConfiguration.fromEnvironment(try environment(["APNS_KEY": nil])) }?.code == .missingConfiguration)
        #expect(apnsError { try APNsConfiguration.fromEnvironment(try environment(["APNS_KEY": " \\n "])) }?.code == .missingConfiguration)
        let path = apnsError { try APNsConfiguration.fromEnvironment(try environment(["APNS_KEY": "./keys/AuthKey.p8"])) }
        #expect(path?.code == .invalidConfiguration)
        #expect(path?.reason.contains("not PEM text") == true)
        let garbage = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"
        #expect(apnsError { try testConfiguration(key: garbage) }?.code == .invalidConfiguration)
        #expect(apnsError { try testConfiguration(keyID: "") }?.code == .missingConfiguration)
        #expect(apnsError { try testConfiguration(bundleID: "") }?.code == .missingConfiguration)
    }

    @Test("base URL: http only on loopback")
    func baseURL() throws {
        #expect(try testConfiguration(baseURL: "http://127.0.0.1:8443/").endpoint == "http://127.0.0.1:8443")
        #expect(apnsError { try testConfiguration(baseURL: "http://apns.example.com") }?.code == .invalidConfiguration)
        let fromEnvironment = try APNsConfiguration.fromEnvironment(
            try environment(["APNS_BASE_URL": "https://localhost:9", "APNS_CA_FILE": "/tmp/ca.pem"]))
        #expect(fromEnvironment.endpoint == "https://localhost:9")
        #expect(fromEnvironment.caFile == "/tmp/ca.pem")
    }

    @Test("the key never appears in description, reflection or errors")
    func redaction() throws {
        let key = try testKeyPEM()
        let configuration = try testConfiguration()
        let body = key.split(separator: "\n")[1]
        for text in [configuration.description, String(reflecting: configuration), "\(configuration)", "\(configuration.key)"] {
            #expect(!text.contains(body))
            #expect(!text.contains("BEGIN PRIVATE KEY"))
        }
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains(body))
        let broken = key.replacing(String(body), with: String(body.dropFirst(4)))
        let error = apnsError { try testConfiguration(key: broken) }
        #expect(error != nil)
        #expect(error.map { !"\($0)".contains(body.dropFirst(4)) } == true)
    }

    @Test("precedence: explicit > provider > environment; provider nil falls through")
    func precedence() async throws {
        let explicit = try testConfiguration(bundleID: "com.example.explicit")
        let provided = try testConfiguration(bundleID: "com.example.provider")
        let answer = Locked<APNsConfiguration?>(provided)
        let sender = APNsSender(environment: try environment(), provider: { answer.withLock { $0 } }, metrics: MetricsRegistry())
        #expect(try await sender.resolveConfiguration(explicit).bundleID == "com.example.explicit")
        #expect(try await sender.resolveConfiguration().bundleID == "com.example.provider")
        #expect(try await sender.liveActivityTopic() == "com.example.provider.push-type.liveactivity")
        answer.withLock { $0 = nil }
        #expect(try await sender.resolveConfiguration().bundleID == "com.example.env")
        sender.setProvider(nil)
        #expect(try await sender.resolveConfiguration().bundleID == "com.example.env")

        struct ProviderFailure: Error {}
        sender.setProvider { throw ProviderFailure() }
        #expect(await apnsError { try await sender.resolveConfiguration() }?.code == .invalidConfiguration)

        let unconfigured = APNsSender(environment: [:], metrics: MetricsRegistry())
        #expect(await apnsError { try await unconfigured.resolveConfiguration() }?.code == .missingConfiguration)
        #expect(try await unconfigured.resolveConfiguration(explicit).bundleID == "com.example.explicit")
    }

    @Test("device tokens must be hexadecimal, 1 to 512 digits; checked before any configuration")
    func deviceTokens() async throws {
        let sender = APNsSender(environment: [:], metrics: MetricsRegistry())
        let notification = try APNsNotification.silent()
        for bad in ["", "xyz", "ab/../cd", "ab cd", String(repeating: "a", count: 513)] {
            #expect(await apnsError { try await sender.send(notification, to: bad) }?.code == .invalidDeviceToken)
        }
        #expect(await apnsError { try await sender.send(notification, to: "abcdef") }?.code == .missingConfiguration)
    }

    @Test("cache key: key enters only as a digest; equality follows it")
    func cacheKey() throws {
        let a = try testConfiguration()
        let b = try testConfiguration()
        #expect(a == b)
        #expect(a.cacheKey.keyDigest.bytes.count == 32)
        #expect(a != (try testConfiguration(keyID: "OTHERKEY00")))
        #expect(a.cacheKey.replaces(try testConfiguration(keyID: "OTHERKEY00").cacheKey))
        #expect(!a.cacheKey.replaces(try testConfiguration(usesSandbox: false).cacheKey))
    }
}

@Suite("apns-id")
struct APNsIDTests {
    @Test("a lower-case version 4 UUID, 8-4-4-4-12, different every time, that Foundation reads back")
    func format() {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = APNsConnection.newAPNsID()
            let bytes = Array(id.utf8)
            #expect(bytes.count == 36)
            for (index, byte) in bytes.enumerated() {
                if [8, 13, 18, 23].contains(index) {
                    #expect(byte == UInt8(ascii: "-"), "\(id)")
                } else {
                    #expect((0x30...0x39).contains(byte) || (0x61...0x66).contains(byte), "\(id)")
                }
            }
            #expect(bytes[14] == UInt8(ascii: "4"), "version 4: \(id)")
            #expect([UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "a"), UInt8(ascii: "b")].contains(bytes[19]), "variant: \(id)")
            #expect(UUID(uuidString: id)?.uuidString.lowercased() == id)
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }
}
