public import AppNativeHTTP

/// What a route callback knows about the request besides its validated body (contract/routes.md,
/// "Request context given to callbacks").
///
/// `user` is the authentication hook's result and the only identity a callback may trust;
/// `deviceID` and every body field are client input (contract/routes.md §4).
public struct NativeRequestContext<User: Sendable>: Sendable {
    /// The body's `device_id`, or the `device_id` query parameter on the GET feeds; `nil` when
    /// the feed request carries none.
    public let deviceID: String?
    /// What the authentication hook returned; `nil` only under
    /// ``NativeAuthentication/insecureNoAuthentication``.
    public let user: User?
    /// The raw request head (method, target, headers) for anything else the host needs.
    public let request: HTTPRequestHead

    /// A context, as the routes build it (public so hosts can unit-test their callbacks).
    ///
    /// - Parameters:
    ///   - deviceID: the device the request names, if any.
    ///   - user: the authenticated user, if any.
    ///   - request: the request head.
    public init(deviceID: String?, user: User?, request: HTTPRequestHead) {
        self.deviceID = deviceID
        self.user = user
        self.request = request
    }
}
