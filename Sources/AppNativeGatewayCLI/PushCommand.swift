import AppNativeAPNs
import AppNativeCore
import AppNativeGateway
import AppNativeJSON
import AppNativeModels

/// `push …`: sends one notification kind to one or more device tokens with the `APNS_*`
/// credentials, prints one result object per token (JSON lines) and exits 4 unless every push
/// was sent.
enum PushCommand {
    static let usage = """
        push alert --token T --title TITLE --body BODY [--data JSON] [--path P] [--interruption-level L]
        push silent --token T [--data JSON]
        push critical --token T --webapp-id W --title TITLE --body BODY [--acknowledge-label L] [--volume V] [--data JSON]
        push widgets --token T --webapp-id W [--widgets JSON-ARRAY]   (no --widgets: refresh flag)
        push approvals --token T --webapp-id W
        push live-activity start --token T --state JSON --attributes JSON [--alert-title T] [--alert-body B] [--stale-at S]
        push live-activity update --token T --state JSON [--alert-title T] [--alert-body B] [--stale-at S] [--priority 5|10]
        push live-activity end --token T [--state JSON] [--dismiss-at S]
                                                  send a push with APNS_*; --token repeats; common options:
                                                  [--expiration S] [--collapse-id ID] [--timeout SECONDS]
                                                  prints one JSON result per token; exit 4 if any was not sent
        """

    static func run(_ arguments: ArgumentList, environment given: [String: String]) async throws -> ExitCode {
        guard let environment = SecretFiles.resolved(forCommand: given) else { return .usage }
        let words = Array(arguments.positional.dropFirst())
        let common: Set<String> = ["token", "expiration", "collapse-id", "timeout"]
        var notification: APNsNotification
        switch words.first {
        case "alert":
            try arguments.checkOnly(common.union(["title", "body", "data", "path", "interruption-level"]))
            let level = try arguments.value("interruption-level").map { name throws(ArgumentList.UsageError) in
                guard let level = APNsInterruptionLevel(rawValue: name) else {
                    throw ArgumentList.UsageError(
                        description: "--interruption-level must be one of passive, active, time-sensitive, critical")
                }
                return level
            }
            notification = try APNsNotification.alert(
                title: try required(arguments, "title"), body: try required(arguments, "body"),
                data: try object(arguments, "data"), path: arguments.value("path"), interruptionLevel: level)
        case "silent":
            try arguments.checkOnly(common.union(["data"]))
            notification = try APNsNotification.silent(data: try object(arguments, "data"))
        case "critical":
            try arguments.checkOnly(common.union(["webapp-id", "title", "body", "acknowledge-label", "volume", "data"]))
            notification = try APNsNotification.critical(
                webAppID: try required(arguments, "webapp-id"), title: try required(arguments, "title"),
                body: try required(arguments, "body"), acknowledgeLabel: arguments.value("acknowledge-label") ?? "Got it",
                volume: try number(arguments, "volume") ?? 1.0, data: try object(arguments, "data"))
        case "widgets":
            try arguments.checkOnly(common.union(["webapp-id", "widgets"]))
            let widgets = try arguments.value("widgets").map { text throws(ArgumentList.UsageError) in
                guard let array = try? JSONParser().parse(text).arrayValue else {
                    throw ArgumentList.UsageError(description: "--widgets must be a JSON array")
                }
                return array
            }
            notification = APNsNotification.widgetUpdate(webAppID: try required(arguments, "webapp-id"), widgets: widgets)
        case "approvals":
            try arguments.checkOnly(common.union(["webapp-id"]))
            notification = APNsNotification.approvalsRefresh(webAppID: try required(arguments, "webapp-id"))
        case "live-activity":
            notification = try liveActivity(arguments, event: words.dropFirst().first, common: common)
        default:
            throw ArgumentList.UsageError(description: "usage:\n" + usage)
        }
        notification.expiration = try integer(arguments, "expiration", in: 0...Int64.max)
        notification.collapseID = arguments.value("collapse-id")
        let tokens = arguments.values("token")
        guard !tokens.isEmpty else { throw ArgumentList.UsageError(description: "--token is required") }

        var options = APNsSenderOptions()
        if let timeout = try number(arguments, "timeout") {
            guard timeout > 0, timeout <= 86_400 else {
                throw ArgumentList.UsageError(description: "--timeout must be positive seconds (at most 86400)")
            }
            options.requestTimeout = .milliseconds(Int64(timeout * 1000))
        }
        let sender = APNsSender(environment: environment, options: options, metrics: MetricsRegistry())
        defer { sender.shutdown() }
        let results = try await sender.send(notification, to: tokens)
        for result in results { CommandOutput.printJSON(result.json) }
        return results.allSatisfy(\.sent) ? .success : .pushNotSent
    }

    private static func liveActivity(
        _ arguments: ArgumentList,
        event: String?,
        common: Set<String>
    ) throws -> APNsNotification {
        switch event {
        case "start":
            try arguments.checkOnly(common.union(["state", "attributes", "alert-title", "alert-body", "stale-at"]))
            guard let object = try object(arguments, "attributes") else {
                throw ArgumentList.UsageError(description: "--attributes is required")
            }
            let attributes = try decoded("attributes") { () throws(ModelError) in
                try LiveActivityAttributes(json: .object(object))
            }
            return try APNsNotification.liveActivityStart(
                state: try state(arguments, required: true)!, attributes: attributes,
                alertTitle: arguments.value("alert-title"), alertBody: arguments.value("alert-body"),
                staleAt: try number(arguments, "stale-at"))
        case "update":
            try arguments.checkOnly(common.union(["state", "alert-title", "alert-body", "stale-at", "priority"]))
            return try APNsNotification.liveActivityUpdate(
                state: try state(arguments, required: true)!, alertTitle: arguments.value("alert-title"),
                alertBody: arguments.value("alert-body"), staleAt: try number(arguments, "stale-at"),
                priority: Int(try integer(arguments, "priority", in: 1...10) ?? 10))
        case "end":
            try arguments.checkOnly(common.union(["state", "dismiss-at"]))
            return try APNsNotification.liveActivityEnd(
                state: try state(arguments, required: false), dismissAt: try number(arguments, "dismiss-at"))
        default:
            throw ArgumentList.UsageError(description: "usage: push live-activity start|update|end …")
        }
    }

    private static func state(_ arguments: ArgumentList, required: Bool) throws -> LiveActivityState? {
        guard let object = try object(arguments, "state") else {
            if required { throw ArgumentList.UsageError(description: "--state is required") }
            return nil
        }
        return try decoded("state") { () throws(ModelError) in try LiveActivityState(json: .object(object)) }
    }

    /// A contract model decoded from `--name`, its issues reported as a usage error.
    private static func decoded<Model>(
        _ name: String, _ decode: () throws(ModelError) -> Model
    ) throws(ArgumentList.UsageError) -> Model {
        do {
            return try decode()
        } catch {
            throw ArgumentList.UsageError(description: "--\(name): \(error.reason)")
        }
    }

    private static func required(_ arguments: ArgumentList, _ name: String) throws(ArgumentList.UsageError) -> String {
        guard let value = arguments.value(name) else { throw ArgumentList.UsageError(description: "--\(name) is required") }
        return value
    }

    private static func object(_ arguments: ArgumentList, _ name: String) throws(ArgumentList.UsageError) -> JSONObject? {
        guard let text = arguments.value(name) else { return nil }
        guard let object = try? JSONParser().parse(text).objectValue else {
            throw ArgumentList.UsageError(description: "--\(name) must be a JSON object")
        }
        return object
    }

    /// `--name` as a whole number in `range`, for values that become integers: a finite number
    /// beyond what the integer holds (`1e300`) would otherwise stop the process in the conversion.
    private static func integer(
        _ arguments: ArgumentList, _ name: String, in range: ClosedRange<Int64>
    ) throws(ArgumentList.UsageError) -> Int64? {
        guard let value = try number(arguments, name) else { return nil }
        guard let whole = Int64(exactly: value), range.contains(whole) else {
            throw ArgumentList.UsageError(description: "--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return whole
    }

    private static func number(_ arguments: ArgumentList, _ name: String) throws(ArgumentList.UsageError) -> Double? {
        guard let text = arguments.value(name) else { return nil }
        guard let value = Double(text), value.isFinite else {
            throw ArgumentList.UsageError(description: "--\(name) must be a number")
        }
        return value
    }
}
