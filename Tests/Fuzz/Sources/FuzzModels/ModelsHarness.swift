import AppNativeJSON
import AppNativeModels

// Unsafe (harness): the input is libFuzzer's buffer, valid for the `run` call and read within its
// count; buffers handed to the parsers are borrowed for their call and copied before they are kept.

/// Every model decoder on arbitrary bytes. The first byte picks the model, the rest is the body.
/// Besides not crashing:
/// - a value that decodes re-encodes (only its present keys) to JSON that decodes to the same value
///   (for Live Activity state, whose `timerEnd` is written as Unix seconds, to the same JSON);
/// - its response encoding (defaults written) decodes to a value with the same response encoding;
/// - an invalid body always carries at least one issue, and its 422 body serializes and parses.
enum ModelsHarness {
    static let decoder = ModelDecoder(maxBodyBytes: 1 << 16)

    static let models: [(String, @Sendable ([UInt8]) -> Void)] = [
        ("DeviceRegistration", { roundTrip(DeviceRegistration.self, $0) }),
        ("LocationUpdate", { roundTrip(LocationUpdate.self, $0) }),
        ("NotificationActionReceived", { roundTrip(NotificationActionReceived.self, $0) }),
        ("WidgetActionReceived", { roundTrip(WidgetActionReceived.self, $0) }),
        ("WidgetOptionsRequest", { roundTrip(WidgetOptionsRequest.self, $0) }),
        ("ApprovalDecisionReceived", { roundTrip(ApprovalDecisionReceived.self, $0) }),
        ("LiveActivityTokenReceived", { roundTrip(LiveActivityTokenReceived.self, $0) }),
        ("Widget", { roundTrip(Widget.self, $0) }),
        ("WidgetFeed", { roundTrip(WidgetFeed.self, $0) }),
        ("ApprovalFeed", { roundTrip(ApprovalFeed.self, $0) }),
        ("NativeForm", { roundTrip(NativeForm.self, $0) }),
        ("NativeContent", { roundTrip(NativeContent.self, $0) }),
        ("LiveActivityState", { roundTrip(LiveActivityState.self, $0) }),
        ("LiveActivityAttributes", { roundTrip(LiveActivityAttributes.self, $0) }),
        ("NativeFileRef", { roundTrip(NativeFileRef.self, $0) }),
        ("ActionData", { roundTrip(ActionData.self, $0) }),
        ("WidgetFeed lenient", checkLenientWidgetFeed),
        ("ApprovalFeed lenient", checkLenientApprovalFeed),
        ("PostedFileRef list", checkPostedFileRefs),
        ("WidgetActionResult", { roundTrip(WidgetActionResult.self, $0) }),
        ("ApprovalDecisionResult", { roundTrip(ApprovalDecisionResult.self, $0) }),
        ("WidgetOptionsResult", { roundTrip(WidgetOptionsResult.self, $0) }),
    ]

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let selector = unsafe input.first else { return }
        let body = unsafe Array(input.dropFirst())
        models[Int(selector) % models.count].1(body)
    }

    static func roundTrip<Model: ModelDecodable & ModelEncodable & Equatable>(_ type: Model.Type, _ body: [UInt8]) {
        let model: Model
        do {
            model = try decoder.decode(Model.self, from: body)
        } catch {
            checkError(error, "\(Model.self)")
            return
        }
        guard isStable(model) else { return }
        let sparse = JSONSerializer.serialize(model.jsonValue(.presentKeysOnly))
        do {
            let again = try decoder.decode(Model.self, from: sparse)
            if model is LiveActivityState {
                // `timerEnd` goes out as Unix seconds: the instant survives, the written offset does not.
                check(again.jsonValue(.presentKeysOnly) == model.jsonValue(.presentKeysOnly),
                    "\(Model.self): present-keys round trip is not stable")
            } else {
                check(again == model, "\(Model.self): present-keys round trip changes the value")
            }
        } catch {
            failCheck("\(Model.self): present-keys encoding is refused: \(error.issues)")
        }
        let response = model.jsonValue(.response)
        do {
            let again = try decoder.decode(Model.self, from: JSONSerializer.serialize(response))
            check(again.jsonValue(.response) == response, "\(Model.self): response round trip is not stable")
        } catch {
            failCheck("\(Model.self): response encoding is refused: \(error.issues)")
        }
    }

    /// `timerEnd` is written as Unix seconds, and the contract reads numbers above 2·10¹⁰ as
    /// milliseconds, so a time after 2603 cannot survive the trip; that is the contract's rule.
    static func isStable(_ model: some ModelEncodable) -> Bool {
        guard let state = model as? LiveActivityState, let timerEnd = state.timerEnd else { return true }
        return abs(timerEnd.unixSeconds) <= 2e10
    }

    static func checkError(_ error: ModelError, _ name: String) {
        if error.code == .invalid {
            check(!error.issues.isEmpty, "\(name): invalid without issues")
        }
        let bytes = error.responseBytes()
        do {
            _ = try JSONParser().parse(bytes)
        } catch {
            failCheck("\(name): 422 body is not JSON: \(error)")
        }
    }

    static func parsed(_ body: [UInt8]) -> JSONValue? {
        try? decoder.parse(body)
    }

    static func checkLenientWidgetFeed(_ body: [UInt8]) {
        guard let value = parsed(body) else { return }
        for allowsWeb in [false, true] {
            guard let result = try? WidgetFeed.decodeDroppingInvalid(value, allowsWebWidgets: allowsWeb) else { continue }
            check(result.kept.count <= ModelLimits.maxWidgetsPerWebApp, "lenient feed keeps too many widgets")
            check(result.dropped.allSatisfy { !$0.issues.isEmpty }, "dropped widget without issues")
            check(allowsWeb || result.kept.allSatisfy { $0.kind != .web }, "web widget kept from an ordinary feed")
            let feed = WidgetFeed(widgets: result.kept)
            do {
                let again = try WidgetFeed(json: feed.jsonValue(.presentKeysOnly))
                check(again == feed, "kept widgets do not round trip")
            } catch {
                failCheck("kept widgets are refused strictly: \(error.issues)")
            }
        }
    }

    static func checkLenientApprovalFeed(_ body: [UInt8]) {
        guard let value = parsed(body), let result = try? ApprovalFeed.decodeDroppingInvalid(value) else { return }
        check(result.kept.count <= ModelLimits.maxApprovalsPerWebApp, "lenient feed keeps too many approvals")
        check(result.dropped.allSatisfy { !$0.issues.isEmpty }, "dropped approval without issues")
        let feed = ApprovalFeed(approvals: result.kept)
        check((try? ApprovalFeed(json: feed.jsonValue(.presentKeysOnly))) == feed, "kept approvals do not round trip")
    }

    static func checkPostedFileRefs(_ body: [UInt8]) {
        guard let value = parsed(body), let list = try? PostedFileRef.decodeList(value) else { return }
        let again = try? PostedFileRef.decodeList(.array(list.map { $0.jsonValue(.response) }))
        check(again == list, "posted file refs do not round trip")
        let refs = list.map(\.ref)
        let resolved = try? FileRefResolver.resolve(refs) { $0 }
        check(resolved == refs, "resolver changes order or drops refs")
    }
}

/// `precondition` that also reports its message in optimized builds (which drop it), so a crash
/// found by libFuzzer explains itself in the log.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

func failCheck(_ message: @autoclosure () -> String) -> Never {
    fatalError(message())
}
