/// Where an error was thrown, for logs. Never includes secret values.
public struct SourceLocation: Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int

    public init(file: String = #fileID, line: Int = #line) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(file):\(line)" }
}
