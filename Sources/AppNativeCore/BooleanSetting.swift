/// The one reading of a boolean setting, shared by every module that reads one from the
/// environment, so `ACCESS_LOG=on`, `SESSION_SECURE=on` and `APNS_USE_SANDBOX=on` all mean the same.
///
/// `true`, `1`, `yes`, `on` and `false`, `0`, `no`, `off`, in any letter case and with surrounding
/// whitespace ignored; unset or blank is the setting's default; any other value is refused with
/// an error naming the setting, never guessed at (a misspelt `flase` must not pick either side).
public enum BooleanSetting: Sendable {
    /// The words read as `true`, lower-cased.
    public static let trueWords = ["true", "1", "yes", "on"]
    /// The words read as `false`, lower-cased.
    public static let falseWords = ["false", "0", "no", "off"]

    /// A value no boolean reads, with the setting it was given for.
    public struct InvalidValue: Error, Sendable, Hashable, CustomStringConvertible {
        /// The variable's name.
        public let setting: String
        /// The value as it was set (booleans are not secrets).
        public let value: String

        /// What the value must be, without the setting's name (for reports that name it already).
        public var requirement: String {
            "must be true or false (or 1/0, yes/no, on/off), got \(value.debugDescription)"
        }

        public var description: String { "\(setting) \(requirement)" }
    }

    /// The value `text` spells, or `nil` when it spells none (a blank value included).
    public static func value(of text: some StringProtocol) -> Bool? {
        let word = text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
        let lowered = String(word).lowercased()
        if trueWords.contains(lowered) { return true }
        if falseWords.contains(lowered) { return false }
        return nil
    }

    /// Reads the setting `name`: `fallback` when it is unset or blank.
    ///
    /// - Throws: ``InvalidValue`` naming the setting for any value that is not one of the words.
    public static func read(_ name: String, from environment: [String: String], default fallback: Bool) throws(InvalidValue) -> Bool {
        guard let text = environment[name], text.contains(where: { !$0.isWhitespace }) else { return fallback }
        guard let value = value(of: text) else { throw InvalidValue(setting: name, value: text) }
        return value
    }
}
