public import AppNativeCore
public import AppNativeJSON
public import AppNativeModels

/// Payload builders, one per send function of contract/apns.md §1. Pure: no credentials, no I/O; the
/// Live Activity builders read the clock only for a missing timestamp.
extension APNsNotification {
    /// Inline widgets are sent only while the whole compact payload fits this many bytes
    /// (`MAX_INLINE_WIDGETS_BYTES`, contract/apns.md §1.4), well under Apple's 4096.
    public static let maxInlineWidgetsBytes = 3500

    /// An alert (`send_push`, contract/apns.md §1.1).
    ///
    /// - Parameters:
    ///   - title: `aps.alert.title`.
    ///   - body: `aps.alert.body`.
    ///   - data: custom keys copied to the top level (`webapp_id`, `path`, `actions`, …);
    ///     a key named `aps` is refused.
    ///   - path: deep link on tap, relative to the web app URL; sets the `path` data key.
    ///   - actions: buttons for the app's notifications tab; sets the `actions` data key.
    ///   - interruptionLevel: `aps.interruption-level`; `.critical` switches `sound` to the
    ///     critical dictionary at full volume.
    /// - Throws: `.invalidPayload` for an `aps` key in `data`.
    public static func alert(
        title: String,
        body: String,
        data: JSONObject? = nil,
        path: String? = nil,
        actions: [APNsAlertAction]? = nil,
        interruptionLevel: APNsInterruptionLevel? = nil
    ) throws(APNsError) -> APNsNotification {
        var data = data ?? JSONObject()
        if let path { data["path"] = .string(path) }
        if let actions { data["actions"] = .array(actions.map(\.json)) }
        let payload = try alertPayload(
            title: title, body: body, data: data, interruptionLevel: interruptionLevel, criticalVolume: 1.0)
        return APNsNotification(kind: .alert, payload: payload, pushType: .alert, priority: 10)
    }

    /// A critical alert (`send_critical_alert`, contract/apns.md §1.2): the alert payload at interruption
    /// level `critical`, with `webapp_id` and `ack_label` data keys overriding `data`.
    ///
    /// - Parameters:
    ///   - webAppID: the web app the alert belongs to (`webapp_id`).
    ///   - acknowledgeLabel: the acknowledge button (`ack_label`); nil or empty sends no key.
    ///   - volume: clamped to 0…1; NaN becomes 1.0 (Python would emit NaN, which is not JSON).
    /// - Throws: `.invalidPayload` for an `aps` key in `data`.
    public static func critical(
        webAppID: String,
        title: String,
        body: String,
        acknowledgeLabel: String? = "Got it",
        volume: Double = 1.0,
        data: JSONObject? = nil
    ) throws(APNsError) -> APNsNotification {
        var data = data ?? JSONObject()
        data["webapp_id"] = .string(webAppID)
        if let acknowledgeLabel, !acknowledgeLabel.isEmpty { data["ack_label"] = .string(acknowledgeLabel) }
        let payload = try alertPayload(
            title: title, body: body, data: data, interruptionLevel: .critical, criticalVolume: volume)
        return APNsNotification(kind: .critical, payload: payload, pushType: .alert, priority: 10)
    }

    /// A silent background push (`send_silent_push`, contract/apns.md §1.3): `content-available` plus `data`.
    /// - Throws: `.invalidPayload` for an `aps` key in `data`.
    public static func silent(data: JSONObject? = nil) throws(APNsError) -> APNsNotification {
        var payload: JSONObject = ["aps": .object(["content-available": 1])]
        try merge(data, into: &payload)
        return APNsNotification(kind: .silent, payload: payload, pushType: .background, priority: 5)
    }

    /// A widget update (`send_widget_update`, contract/apns.md §1.4).
    ///
    /// - Parameters:
    ///   - webAppID: the web app whose widgets change.
    ///   - widgets: the widgets already encoded as in the feed (camelCase, nulls omitted,
    ///     defaults kept). `nil` asks the app to refetch (`widgets_refresh`); a list is sent
    ///     inline while the compact payload fits `maxInlineWidgetsBytes`, else the refresh flag
    ///     is sent instead. An empty list is inline: "this web app has no widgets now".
    public static func widgetUpdate(webAppID: String, widgets: [JSONValue]?) -> APNsNotification {
        let base: JSONObject = ["aps": .object(["content-available": 1]), "webapp_id": .string(webAppID)]
        if let widgets {
            var inline = base
            inline["widgets"] = .array(widgets)
            if JSONSerializer.serialize(.object(inline)).count <= maxInlineWidgetsBytes {
                return APNsNotification(kind: .widgets, payload: inline, pushType: .background, priority: 5)
            }
        }
        var refresh = base
        refresh["widgets_refresh"] = true
        return APNsNotification(kind: .widgets, payload: refresh, pushType: .background, priority: 5)
    }

    /// An approvals refresh (`send_approvals_update`, contract/apns.md §1.5).
    public static func approvalsRefresh(webAppID: String) -> APNsNotification {
        let payload: JSONObject = [
            "aps": .object(["content-available": 1]), "webapp_id": .string(webAppID), "approvals_refresh": true,
        ]
        return APNsNotification(kind: .approvals, payload: payload, pushType: .background, priority: 5)
    }

    /// A Live Activity update (`send_live_activity_update`, contract/apns.md §1.6).
    ///
    /// - Parameters:
    ///   - state: the new `content-state`, checked against contract/models.md §5 before it is written.
    ///   - alertTitle: shows an alert when non-empty; `alertBody` defaults to `""`.
    ///   - staleAt: Unix seconds (truncated) after which the activity shows as stale.
    ///   - priority: 10 (default) or 5.
    ///   - timestamp: Unix seconds; nil or 0 means `now`.
    ///   - now: the wall clock reading used for a missing timestamp.
    /// - Throws: `.invalidPayload` for a priority other than 5 or 10, a state that breaks a rule
    ///   of contract/models.md §5 or a non-finite date.
    public static func liveActivityUpdate(
        state: LiveActivityState,
        alertTitle: String? = nil,
        alertBody: String? = nil,
        staleAt: Double? = nil,
        priority: Int = 10,
        timestamp: Int64? = nil,
        now: Double = SystemTimeSource().wallSeconds
    ) throws(APNsError) -> APNsNotification {
        guard priority == 5 || priority == 10 else {
            throw APNsError(.invalidPayload, reason: "Live Activity priority must be 5 or 10")
        }
        let payload = try liveActivityMessage(
            event: "update", state: state, alertTitle: alertTitle, alertBody: alertBody, staleAt: staleAt,
            dismissAt: nil, timestamp: timestamp, now: now)
        return APNsNotification(
            kind: .liveActivityUpdate, payload: payload, pushType: .liveActivity, priority: priority)
    }

    /// A Live Activity end (`send_live_activity_end`, contract/apns.md §1.6): no alert, no stale date.
    ///
    /// - Parameters:
    ///   - state: the final `content-state`, if any, checked against contract/models.md §5.
    ///   - dismissAt: Unix seconds; in the past removes it now; nil lets iOS keep it up to 4 h.
    /// - Throws: `.invalidPayload` for a state that breaks a rule of contract/models.md §5 or a non-finite date.
    public static func liveActivityEnd(
        state: LiveActivityState? = nil,
        dismissAt: Double? = nil,
        timestamp: Int64? = nil,
        now: Double = SystemTimeSource().wallSeconds
    ) throws(APNsError) -> APNsNotification {
        let payload = try liveActivityMessage(
            event: "end", state: state, alertTitle: nil, alertBody: nil, staleAt: nil, dismissAt: dismissAt,
            timestamp: timestamp, now: now)
        return APNsNotification(kind: .liveActivityEnd, payload: payload, pushType: .liveActivity, priority: 10)
    }

    /// A push-to-start Live Activity (iOS 17.2+, contract/apns.md §1.7). The alert is always present:
    /// `alertTitle`/`alertBody` when a title is given, else the state's title and subtitle.
    ///
    /// - Throws: `.invalidPayload` for a state or attributes that break a rule of contract/models.md §5
    ///   or a non-finite date.
    public static func liveActivityStart(
        state: LiveActivityState,
        attributes: LiveActivityAttributes,
        alertTitle: String? = nil,
        alertBody: String? = nil,
        staleAt: Double? = nil,
        timestamp: Int64? = nil,
        now: Double = SystemTimeSource().wallSeconds
    ) throws(APNsError) -> APNsNotification {
        var aps = JSONObject()
        aps["timestamp"] = .number(JSONNumber(resolvedTimestamp(timestamp, now: now)))
        aps["event"] = "start"
        aps["content-state"] = try checkedJSON(state, as: "content-state")
        aps["attributes-type"] = .string(LiveActivityAttributes.attributesType)
        aps["attributes"] = try checkedJSON(attributes, as: "attributes")
        let alert: JSONObject =
            if let alertTitle, !alertTitle.isEmpty {
                ["title": .string(alertTitle), "body": .string(alertBody ?? "")]
            } else {
                ["title": .string(state.title), "body": .string(state.subtitle ?? "")]
            }
        aps["alert"] = .object(alert)
        if let staleAt { aps["stale-date"] = .number(JSONNumber(try epochSeconds(staleAt, "stale-date"))) }
        return APNsNotification(
            kind: .liveActivityStart, payload: ["aps": .object(aps)], pushType: .liveActivity, priority: 10)
    }

    /// `build_live_activity_message` (contract/apns.md §1.6).
    ///
    /// - Throws: `.invalidPayload` for `update` without a state, a state that breaks a rule of
    ///   contract/models.md §5 or a non-finite date.
    static func liveActivityMessage(
        event: String,
        state: LiveActivityState?,
        alertTitle: String?,
        alertBody: String?,
        staleAt: Double?,
        dismissAt: Double?,
        timestamp: Int64?,
        now: Double
    ) throws(APNsError) -> JSONObject {
        if event == "update", state == nil {
            throw APNsError(.invalidPayload, reason: "a Live Activity update needs a content-state")
        }
        var aps = JSONObject()
        aps["timestamp"] = .number(JSONNumber(resolvedTimestamp(timestamp, now: now)))
        aps["event"] = .string(event)
        if let state { aps["content-state"] = try checkedJSON(state, as: "content-state") }
        if let alertTitle, !alertTitle.isEmpty {
            aps["alert"] = .object(["title": .string(alertTitle), "body": .string(alertBody ?? "")])
        }
        if let staleAt { aps["stale-date"] = .number(JSONNumber(try epochSeconds(staleAt, "stale-date"))) }
        if let dismissAt {
            aps["dismissal-date"] = .number(JSONNumber(try epochSeconds(dismissAt, "dismissal-date")))
        }
        return ["aps": .object(aps)]
    }

    /// `model`'s response JSON (`timerEnd` as Unix seconds), after checking it with the contract
    /// decoder. The models' memberwise initialisers do not validate, so a value built in code is
    /// checked here, by decoding what it would send, before it reaches a device.
    ///
    /// - Throws: `.invalidPayload` naming the broken rules by path (``ModelError/reason`` never
    ///   quotes input values).
    static func checkedJSON<Model: ModelDecodable & ModelEncodable>(
        _ model: Model, as field: String
    ) throws(APNsError) -> JSONValue {
        do {
            _ = try Model(json: model.jsonValue(.presentKeysOnly))
        } catch {
            throw APNsError(.invalidPayload, reason: "\(field) breaks the payload limits of contract/models.md §5: \(error.reason)")
        }
        return model.jsonValue(.response)
    }

    /// The given timestamp, or `now` in whole seconds when it is missing or 0.
    static func resolvedTimestamp(_ timestamp: Int64?, now: Double) -> Int64 {
        if let timestamp, timestamp != 0 { return timestamp }
        return Int64(now.rounded(.towardZero))
    }

    /// `int(seconds)`: truncated towards zero, like Python's `int()`.
    static func epochSeconds(_ seconds: Double, _ field: String) throws(APNsError) -> Int64 {
        guard seconds.isFinite, abs(seconds) < 1e15 else {
            throw APNsError(.invalidPayload, reason: "aps.\(field) must be a finite number of seconds")
        }
        return Int64(seconds.rounded(.towardZero))
    }

    /// The alert payload shared by `alert` and `critical`.
    static func alertPayload(
        title: String,
        body: String,
        data: JSONObject,
        interruptionLevel: APNsInterruptionLevel?,
        criticalVolume: Double
    ) throws(APNsError) -> JSONObject {
        var aps = JSONObject()
        aps["alert"] = .object(["title": .string(title), "body": .string(body)])
        if interruptionLevel == .critical {
            aps["sound"] = .object([
                "critical": 1, "name": "default", "volume": .number(JSONNumber(clampedVolume(criticalVolume))!),
            ])
        } else {
            aps["sound"] = "default"
        }
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel.rawValue) }
        var payload: JSONObject = ["aps": .object(aps)]
        try merge(data, into: &payload)
        return payload
    }

    /// `clamp(volume, 0.0, 1.0)`, with NaN as 1.0 (contract/apns.md §1.2).
    static func clampedVolume(_ volume: Double) -> Double {
        volume.isNaN ? 1.0 : min(max(volume, 0.0), 1.0)
    }

    /// Copies `data` to the top level. An `aps` key would replace the whole `aps` object (the
    /// Python trap of contract/apns.md §1.1), so it is refused.
    static func merge(_ data: JSONObject?, into payload: inout JSONObject) throws(APNsError) {
        guard let data else { return }
        if data.contains("aps") {
            throw APNsError(.invalidPayload, reason: "data must not contain an `aps` key")
        }
        for (key, value) in data { payload[key] = value }
    }
}
