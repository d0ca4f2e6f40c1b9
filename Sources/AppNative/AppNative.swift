// The umbrella library for Swift backends: one import brings the public modules.
// Re-exported (not wrapped) so the types keep their module-qualified names in docs and errors.
@_exported public import AppNativeAuth
@_exported public import AppNativeClient
@_exported public import AppNativeCore
@_exported public import AppNativeCrypto
@_exported public import AppNativeHTTP
@_exported public import AppNativeJSON
@_exported public import AppNativeModels
@_exported public import AppNativeAPNs
// The native routes and the server they mount on (docs/swift-backends.md).
@_exported public import AppNativeRoutes
@_exported public import AppNativeServer
