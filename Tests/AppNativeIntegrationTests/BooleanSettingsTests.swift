import AppNativeAPNs
import AppNativeAuth
import AppNativeCore
import AppNativeGateway
import AppNativeServer
import AppNativeTesting
import Foundation
import Testing

/// Every boolean setting reads the same words the same way (`BooleanSetting`): the table below
/// names each one with where its value lands, and a registered setting whose default is `true` or
/// `false` but has no row here fails, so a new boolean cannot read its words differently unseen.
@Suite("Boolean settings: one reading for every switch")
struct BooleanSettingsTests {
    /// Everything configured, so that every boolean is read (the APNs settings only with push keys).
    static func base() throws -> [String: String] {
        let key = try String(contentsOfFile: ProcessRunner.repositoryRoot() + "/keys/test/apns-test.p8", encoding: .utf8)
        return ProxyFixture.publicEnvironment([
            "UPSTREAM_URL": "http://127.0.0.1:1", "SESSION_SECRET": "0123456789abcdef0123456789abcdef-session",
            "PUSH_API_KEYS": "push-key-0123456789abcdef", "APNS_KEY": key, "APNS_KEY_ID": "KEY1234567",
            "APNS_TEAM_ID": "TEAM000001", "APNS_BUNDLE_ID": "com.example.booleans",
        ])
    }

    /// Each boolean setting and how to see the value it was read as. `nil`: the value turns on a
    /// feature that needs settings of its own, so only the absence of a problem naming it is checked.
    static let readers: [String: (@Sendable (GatewayConfiguration) throws -> Bool)?] = [
        "PASS_METHOD_OVERRIDE": { $0.passesMethodOverride },
        "ACCESS_LOG": { $0.isAccessLogEnabled },
        "SESSION_SECURE": { $0.identity.session?.isSecure ?? false },
        "SESSION_ACCEPT_REFERENCE_COOKIES": { $0.identity.session?.acceptsReferenceCookies ?? false },
        "PASS_AUTHORIZATION": { $0.identity.passesAuthorization },
        "NATIVE_ROUTES": { $0.native.isEnabled },
        "HTTP2": { $0.server.http2 != nil },
        "APNS_USE_SANDBOX": { try APNsConfiguration.fromEnvironment($0.push.apnsEnvironment).usesSandbox },
        "BROWSER_SIGN_IN": nil,
        "GROUPS_FROM_GRAPH": nil,
    ]

    static var booleanSettings: [Setting] {
        GatewayConfiguration.settings.filter { $0.defaultValue == "true" || $0.defaultValue == "false" }
    }

    static let trueSpellings = ["true", "TRUE", "True", "1", "yes", "YES", "on", "On", " on "]
    static let falseSpellings = ["false", "FALSE", "False", "0", "no", "No", "off", "OFF", " off "]
    static let refused = ["maybe", "2", "-1", "enabled", "t", "f", "y", "n", "truee", "on off", "yes!"]

    static func problems(_ environment: [String: String]) -> [ConfigurationError.Problem] {
        do {
            _ = try GatewayConfiguration.fromEnvironment(environment)
            return []
        } catch {
            return error.problems
        }
    }

    @Test("the words, case and surrounding space ignored")
    func words() {
        for word in Self.trueSpellings { #expect(BooleanSetting.value(of: word) == true, "\(word)") }
        for word in Self.falseSpellings { #expect(BooleanSetting.value(of: word) == false, "\(word)") }
        for word in Self.refused + ["", "  "] { #expect(BooleanSetting.value(of: word) == nil, "\(word)") }
        let refusal = #expect(throws: BooleanSetting.InvalidValue.self) {
            try BooleanSetting.read("X", from: ["X": "maybe"], default: true)
        }
        #expect(refusal?.setting == "X" && refusal?.value == "maybe")
        #expect(refusal?.description == #"X must be true or false (or 1/0, yes/no, on/off), got "maybe""#)
        #expect((try? BooleanSetting.read("X", from: ["X": " "], default: true)) == true, "blank is unset")
        #expect((try? BooleanSetting.read("X", from: [:], default: false)) == false)
    }

    @Test("every registered boolean setting has a row in this table")
    func everyBooleanIsListed() {
        let registered = Set(Self.booleanSettings.map(\.name))
        #expect(registered == Set(Self.readers.keys), "registered \(registered.sorted()), listed \(Self.readers.keys.sorted())")
    }

    @Test("each boolean setting reads every spelling of true and false, and its default when unset or blank")
    func readings() throws {
        let base = try Self.base()
        #expect(Self.problems(base).isEmpty, "\(Self.problems(base))")
        for setting in Self.booleanSettings {
            let fallback = setting.defaultValue == "true"
            for (spellings, expected) in [(Self.trueSpellings, true), (Self.falseSpellings, false), (["", "   "], fallback)] {
                for spelling in spellings {
                    let environment = base.merging([setting.name: spelling]) { $1 }
                    let named = Self.problems(environment).filter { $0.variable == setting.name }
                    #expect(named.isEmpty, "\(setting.name)=\(spelling.debugDescription): \(named)")
                    guard let reader = Self.readers[setting.name] ?? nil, Self.problems(environment).isEmpty else { continue }
                    let configuration = try GatewayConfiguration.fromEnvironment(environment)
                    #expect(try reader(configuration) == expected, "\(setting.name)=\(spelling.debugDescription)")
                }
            }
        }
    }

    @Test("each boolean setting refuses any other value with one problem naming it")
    func refusals() throws {
        let base = try Self.base()
        for setting in Self.booleanSettings {
            for value in Self.refused {
                let problems = Self.problems(base.merging([setting.name: value]) { $1 })
                let named = problems.filter { $0.variable == setting.name }
                #expect(named.count == 1, "\(setting.name)=\(value.debugDescription): \(problems)")
                #expect(named.first?.message.contains("true or false") == true, "\(setting.name)=\(value.debugDescription): \(named)")
            }
        }
    }
}
