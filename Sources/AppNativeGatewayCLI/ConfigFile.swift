import Foundation

/// A `KEY=value` settings file for `--config`: one setting per line, blank lines and `#`
/// comments ignored, values taken literally (no quoting, no expansion).
enum ConfigFile {
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    static func load(_ path: String) throws -> [String: String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Invalid(description: "--config: cannot read \(path)")
        }
        var values = [String: String]()
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else {
                throw Invalid(description: "--config \(path): line \(number + 1) is not KEY=value")
            }
            values[String(line[..<equals]).trimmingCharacters(in: .whitespaces)] = String(line[line.index(after: equals)...])
        }
        return values
    }
}
