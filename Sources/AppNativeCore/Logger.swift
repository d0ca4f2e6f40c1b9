import Foundation

// Unsafe: write(2) is given the line's buffer and its count, borrowed for the call.

/// Severity of a log line.
public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case debug, info, warning, error

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// One structured log record. Keys are dotted lowercase nouns (`jwks.url`, `auth.reason`).
public struct LogRecord: Sendable {
    public var level: LogLevel
    public var message: String
    public var metadata: [String: String]
    public var wallSeconds: Double

    public init(level: LogLevel, message: String, metadata: [String: String], wallSeconds: Double) {
        self.level = level
        self.message = message
        self.metadata = metadata
        self.wallSeconds = wallSeconds
    }
}

/// Where log records go. The default writes one JSON object per line to standard error.
public protocol LogSink: Sendable {
    func write(_ record: LogRecord)
}

/// A logger facade: a sink, a minimum level and metadata carried into every record
/// (a request id, a component name).
public struct Logger: Sendable {
    public var sink: any LogSink
    public var minimumLevel: LogLevel
    public var metadata: [String: String]
    private let time: any TimeSource

    public init(
        sink: any LogSink = StandardErrorLogSink(),
        minimumLevel: LogLevel = .info,
        metadata: [String: String] = [:],
        time: any TimeSource = SystemTimeSource()
    ) {
        self.sink = sink
        self.minimumLevel = minimumLevel
        self.metadata = metadata
        self.time = time
    }

    /// A logger that drops everything.
    public static var disabled: Logger { Logger(sink: DiscardingLogSink(), minimumLevel: .error) }

    /// A copy that adds `metadata` to every record.
    public func with(_ extra: [String: String]) -> Logger {
        var copy = self
        copy.metadata.merge(extra) { _, new in new }
        return copy
    }

    public func log(_ level: LogLevel, _ message: String, _ extra: [String: String] = [:]) {
        guard level >= minimumLevel else { return }
        var merged = metadata
        merged.merge(extra) { _, new in new }
        sink.write(LogRecord(level: level, message: message, metadata: merged, wallSeconds: time.wallSeconds))
    }

    public func debug(_ message: String, _ extra: [String: String] = [:]) { log(.debug, message, extra) }
    public func info(_ message: String, _ extra: [String: String] = [:]) { log(.info, message, extra) }
    public func warning(_ message: String, _ extra: [String: String] = [:]) { log(.warning, message, extra) }
    public func error(_ message: String, _ extra: [String: String] = [:]) { log(.error, message, extra) }
}

/// Drops every record.
public struct DiscardingLogSink: LogSink {
    public init() {}
    public func write(_ record: LogRecord) {}
}

/// Writes each record as one JSON line to standard error with a single `write(2)`,
/// so lines from several threads never interleave.
public struct StandardErrorLogSink: LogSink {
    public init() {}

    public func write(_ record: LogRecord) {
        var line = LogLine.json(for: record)
        line.append("\n")
        line.withUTF8 { bytes in
            _ = unsafe Foundation.write(STDERR_FILENO, bytes.baseAddress, bytes.count)
        }
    }
}

/// JSON rendering of a log record, kept dependency-free so Core needs no JSON module.
public enum LogLine: Sendable {
    public static func json(for record: LogRecord) -> String {
        var out = "{\"ts\":"
        out += String(format: "%.3f", record.wallSeconds)
        out += ",\"level\":\"\(record.level)\",\"msg\":"
        appendQuoted(record.message, to: &out)
        for key in record.metadata.keys.sorted() {
            out += ","
            appendQuoted(key, to: &out)
            out += ":"
            appendQuoted(record.metadata[key] ?? "", to: &out)
        }
        out += "}"
        return out
    }

    /// Appends `text` as a JSON string literal (RFC 8259 §7).
    public static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                out += String(format: "\\u%04x", c.value)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
