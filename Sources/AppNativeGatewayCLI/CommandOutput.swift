import AppNativeAuth
import AppNativeCrypto
import AppNativeJSON
import Foundation

/// Writing results: JSON to standard output, human messages to standard error.
enum CommandOutput {
    static func printJSON(_ object: JSONObject) {
        print(JSONSerializer.string(.object(object)))
    }

    /// A verdict's fields for a credential that verified: `user` and `expires_at`.
    static func markValid(_ verdict: inout JSONObject, _ identity: VerifiedIdentity) {
        verdict["valid"] = .bool(true)
        verdict["reason"] = .null
        verdict["user"] = json(identity.user)
        verdict["expires_at"] = seconds(identity.expiresAt)
    }

    /// A verdict's fields for a credential refused with `error`: its code and reason.
    static func markInvalid(_ verdict: inout JSONObject, _ error: AuthError) {
        verdict["valid"] = .bool(false)
        verdict["reason"] = .string(error.code.description)
        verdict["detail"] = .string(error.reason)
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data(("app-native-gateway: " + message + "\n").utf8))
    }

    /// Reads standard input whole, trimmed of surrounding whitespace (a pasted token ends in a newline).
    static func readStandardInput() -> String {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A short, non-reversible reference to a credential for output and logs: never the credential itself.
    static func fingerprint(_ credential: String) -> String {
        "sha256:" + SHA256.hash(credential).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// A NumericDate as an integer when it is one (the usual case), else as a decimal.
    static func seconds(_ value: Double) -> JSONValue {
        if value == value.rounded(), abs(value) < 1e15 { return .number(JSONNumber(Int64(value))) }
        return JSONNumber(value).map(JSONValue.number) ?? .null
    }

    static func json(_ user: UserIdentity) -> JSONValue {
        var object = JSONObject()
        object["oid"] = .string(user.objectID)
        // An application (`caller_type` `app`) has no email.
        object["email"] = user.email.map(JSONValue.string) ?? .null
        object["tenant_id"] = .string(user.tenantID)
        object["caller_type"] = .string(user.callerType.rawValue)
        object["client_id"] = user.clientID.map(JSONValue.string) ?? .null
        object["name"] = user.name.map(JSONValue.string) ?? .null
        object["upn"] = user.upn.map(JSONValue.string) ?? .null
        if !user.roles.isEmpty { object["roles"] = .array(user.roles.map(JSONValue.string)) }
        if !user.groups.isEmpty { object["groups"] = .array(user.groups.map(JSONValue.string)) }
        if user.hasGroupsOverage { object["groups_overage"] = .bool(true) }
        return .object(object)
    }
}
