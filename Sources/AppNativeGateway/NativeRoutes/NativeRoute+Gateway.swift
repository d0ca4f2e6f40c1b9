public import AppNativeRoutes
import Foundation

/// What only the gateway needs to know about a native route: where its events are forwarded.
extension NativeRoute {
    /// `NATIVE_UPSTREAM_<ROUTE>_URL`: where this route's events go instead of the same path on
    /// `UPSTREAM_URL`.
    public var upstreamURLSetting: String {
        "NATIVE_UPSTREAM_" + rawValue.uppercased().replacingOccurrences(of: "-", with: "_") + "_URL"
    }
}
