import AppNativeCore
/// One documented configuration variable: its name, default, meaning and the section it belongs to.
/// The table of all settings is the single source of `config reference` and docs/configuration.md.
public struct Setting: Sendable, Hashable {
    public let name: String
    /// The default as the user would write it; `nil` when there is none (required or optional without default).
    public let defaultValue: String?
    public let summary: String
    public let section: String
    public let isSecret: Bool

    public init(_ name: String, default defaultValue: String? = nil, section: String, secret: Bool = false, _ summary: String) {
        self.name = name
        self.defaultValue = defaultValue
        self.summary = summary
        self.section = section
        isSecret = secret
    }
}

/// Problems found while reading the configuration: all of them are reported at once, each
/// naming its variable, and the process exits with code 2.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public struct Problem: Sendable, Hashable {
        public let variable: String
        public let message: String
    }

    public let problems: [Problem]

    public var description: String {
        problems.map { "\($0.variable): \($0.message)" }.joined(separator: "\n")
    }
}

/// Reads typed values from an environment, collecting every problem instead of stopping at the first.
/// Values of secret settings never appear in messages.
public struct EnvironmentReader: Sendable {
    public let environment: [String: String]
    public private(set) var problems: [ConfigurationError.Problem] = []

    public init(_ environment: [String: String]) {
        self.environment = environment
    }

    /// Records a problem; the same problem reported twice (a setting two readers share) is kept once.
    public mutating func report(_ variable: String, _ message: String) {
        let problem = ConfigurationError.Problem(variable: variable, message: message)
        if !problems.contains(problem) { problems.append(problem) }
    }

    /// Names the problems reported for `variable` by `other` instead (`SESSION_SECRET` read
    /// from the file `SESSION_SECRET_FILE` names: the file is what to fix).
    public mutating func attribute(_ variable: String, to other: String) {
        guard variable != other else { return }
        problems = problems.map { $0.variable == variable ? ConfigurationError.Problem(variable: other, message: $0.message) : $0 }
    }

    /// The trimmed value, `nil` when unset or blank.
    public func string(_ name: String) -> String? {
        guard let value = environment[name] else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    public mutating func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) -> Int {
        guard let text = string(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            report(name, "must be an integer in \(range.lowerBound)…\(range.upperBound), got \(text.debugDescription)")
            return fallback
        }
        return value
    }

    /// Seconds (integer or decimal) as a duration.
    public mutating func duration(_ name: String, default fallback: Duration, max: Double = 86_400) -> Duration {
        guard let text = string(name) else { return fallback }
        guard let seconds = Double(text), seconds > 0, seconds <= max else {
            report(name, "must be a positive number of seconds (at most \(Int(max))), got \(text.debugDescription)")
            return fallback
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// A boolean setting, read by ``BooleanSetting`` as every boolean setting is.
    public mutating func boolean(_ name: String, default fallback: Bool) -> Bool {
        do {
            return try BooleanSetting.read(name, from: environment, default: fallback)
        } catch {
            report(name, error.requirement)
            return fallback
        }
    }

    /// A comma-separated list, entries trimmed, blanks dropped.
    public func list(_ name: String) -> [String] {
        guard let text = string(name) else { return [] }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    public func finish() throws(ConfigurationError) {
        if !problems.isEmpty { throw ConfigurationError(problems: problems) }
    }
}

import Foundation
