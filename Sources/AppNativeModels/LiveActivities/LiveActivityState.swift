public import AppNativeJSON

/// A Live Activity's `content-state` (`contract/models.md` §5).
public struct LiveActivityState: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// Non-empty.
    public var title: String
    public var subtitle: String?
    /// Short text for the compact Dynamic Island.
    public var status: String?
    /// 0…1 inclusive.
    public var progress: JSONNumber?
    /// At most 5.
    public var steps: [String]?
    /// At least 0, and below `steps.count` when `steps` is non-empty.
    public var currentStep: Int?
    /// Read as ISO 8601 or Unix seconds; written as Unix seconds, as ActivityKit decodes it.
    public var timerEnd: Timestamp?
    public var icon: String?
    /// Free string, not validated.
    public var tint: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        title: String, subtitle: String? = nil, status: String? = nil, progress: JSONNumber? = nil,
        steps: [String]? = nil, currentStep: Int? = nil, timerEnd: Timestamp? = nil, icon: String? = nil,
        tint: String? = nil
    ) {
        self.title = title
        self.subtitle = subtitle
        self.status = status
        self.progress = progress
        self.steps = steps
        self.currentStep = currentStep
        self.timerEnd = timerEnd
        self.icon = icon
        self.tint = tint
    }

    /// Decodes a state (camelCase, snake_case accepted).
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("title", title)
        writer.set("subtitle", subtitle)
        writer.set("status", status)
        writer.set("progress", progress)
        writer.set("steps", steps)
        writer.set("currentStep", currentStep)
        writer.set("timerEnd", timerEnd.flatMap { JSONNumber($0.unixSeconds) })
        writer.set("icon", icon)
        writer.set("tint", tint)
        return writer.value
    }
}

extension LiveActivityState: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let title = reader.required("title") { $0.nonEmptyString() }
        let subtitle = reader.optional("subtitle") { $0.string() }
        let status = reader.optional("status") { $0.string() }
        let progress = reader.optional("progress") { $0.number(atLeast: 0, atMost: 1) }
        let steps = reader.optional("steps") { cursor in
            cursor.array(max: ModelLimits.maxLiveActivitySteps) { $0.string() }
        }
        let currentStep = reader.optional("currentStep") { $0.int(atLeast: 0) }
        if let currentStep, let steps, !steps.isEmpty, currentStep >= steps.count {
            reader.invalid("currentStep", "currentStep must be less than the number of steps",
                input: .number(JSONNumber(currentStep)))
        }
        let timerEnd = reader.optional("timerEnd") { $0.timestamp() }
        let icon = reader.optional("icon") { $0.string() }
        let tint = reader.optional("tint") { $0.string() }
        guard reader.isClean, let title else { return nil }
        self.init(
            title: title, subtitle: subtitle, status: status, progress: progress, steps: steps,
            currentStep: currentStep, timerEnd: timerEnd, icon: icon, tint: tint)
    }
}
