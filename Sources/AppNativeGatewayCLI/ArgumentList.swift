/// A minimal `--flag value` / `--switch` parser for the operator CLI: no outside packages.
struct ArgumentList: Sendable {
    private(set) var positional: [String] = []
    private var options: [String: [String]] = [:]
    private var switches: Set<String> = []

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// - Parameters:
    ///   - switchNames: flags that take no value (`--dev`); every other `--name` takes the next argument.
    init(_ arguments: [String], switchNames: Set<String>) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                var inlineValue: String?
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                if switchNames.contains(name) {
                    guard inlineValue == nil else { throw UsageError(description: "--\(name) takes no value") }
                    switches.insert(name)
                } else if let inlineValue {
                    options[name, default: []].append(inlineValue)
                } else {
                    index += 1
                    guard index < arguments.count else { throw UsageError(description: "--\(name) needs a value") }
                    options[name, default: []].append(arguments[index])
                }
            } else {
                positional.append(argument)
            }
            index += 1
        }
    }

    func has(_ name: String) -> Bool { switches.contains(name) }
    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }

    /// Fails when an option outside `known` was given (typos must not be ignored).
    func checkOnly(_ known: Set<String>) throws(UsageError) {
        let unknown = Set(options.keys).union(switches).subtracting(known.union(["config"]))
        if let first = unknown.sorted().first { throw UsageError(description: "unknown option --\(first)") }
    }
}
