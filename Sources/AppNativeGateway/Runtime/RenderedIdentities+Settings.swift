import AppNativeAuth
import AppNativeIdentity

extension RenderedIdentities {
    /// The rendering of the request path's identity settings.
    init(settings: IdentitySettings) {
        self.init(assertions: settings.assertions, profile: settings.profile, cookies: settings.authenticator.cookies)
    }
}
