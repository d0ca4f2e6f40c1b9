import AppNativeModels
@testable import AppNativeRoutes
import Testing

/// The table of the routes (`NativeRoute.contract`) and the callbacks keyed by it agree: what a
/// route reads is what its callback takes, and an unset callback leaves its route unmounted.
@Suite struct NativeRouteContractTests {
    @Test func everyCallbackReadsWhatItsRouteContractSays() throws {
        let callbacks = recordingCallbacks(Recorder())
        for route in NativeRoute.allCases {
            let mounted = try #require(callbacks.mounted(route), "\(route)")
            switch (route.contract.request, mounted) {
            case (.feed, .feed), (.document, .document), (.json, .json): break
            default: Issue.record("\(route): the callback reads another body than the contract")
            }
        }
    }

    @Test func noCallbackMountsNoRoute() {
        let callbacks = NativeRouteCallbacks<String>()
        for route in NativeRoute.allCases { #expect(callbacks.mounted(route) == nil, "\(route)") }
    }

    @Test func feedsAreGETAndEverythingElsePOST() {
        for route in NativeRoute.allCases {
            #expect(route.method == ([.widgets, .approvals].contains(route) ? "GET" : "POST"), "\(route)")
            #expect(route.accepts("HEAD") == (route.method == "GET"), "\(route)")
        }
    }

    @Test func eventsAnswerOkAndLiveActivitiesNoContent() {
        for route in [NativeRoute.devices, .locations, .notificationActions, .liveActivities] {
            switch route.contract.answer {
            case .ok: #expect(route != .liveActivities)
            case .noContent: #expect(route == .liveActivities)
            default: Issue.record("\(route) is an event")
            }
        }
    }
}
