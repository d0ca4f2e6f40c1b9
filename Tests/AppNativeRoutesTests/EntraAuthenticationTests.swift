import AppNativeAuth
import AppNativeCore
import AppNativeHTTP
import AppNativeRoutes
import AppNativeServer
import AppNativeTesting
import Foundation
import Testing

/// `NativeAuthentication.requestAuthenticator(_:)`: the project's credential resolution as the
/// routes' hook (contract/auth.md §1, §7), refusals byte for byte.
@Suite struct EntraAuthenticationTests {
    struct NoKeys: JWKSFetching {
        struct Unreachable: Error {}
        func fetchDocument() async throws -> [UInt8] { throw Unreachable() }
    }

    @Test func refusalsAreTheAuthenticatorsAnswers() async throws {
        let configuration = try EntraConfiguration(tenantID: "00000000-0000-0000-0000-000000000001", audiences: ["api://test"])
        let verifier = EntraTokenVerifier(configuration: configuration, fetcher: NoKeys(), logger: .disabled, metrics: MetricsRegistry())
        let authentication = NativeAuthentication.requestAuthenticator(RequestAuthenticator(verifier: verifier, cookies: nil))
        var callbacks = NativeRouteCallbacks<VerifiedIdentity>()
        let reached = Locked(false)
        callbacks.registerDevice = { _, _ in reached.withLock { $0 = true } }
        let server = try HTTPServer(
            configuration: try patientConfiguration(),
            metrics: MetricsRegistry(), logger: .disabled
        ) { _ in NativeRoutesHandler(authentication: authentication, callbacks: callbacks, logger: .disabled) }
        server.start()
        defer { server.shutdown(gracePeriod: .seconds(1)) }
        let port = Int(server.boundAddress.port)

        let anonymous = try await post(port, "/api/devices", json: #"{"device_id":"d1"}"#, headers: [:])
        #expect(anonymous.status == 401)
        #expect(anonymous.bodyText == #"{"detail":"Not authenticated"}"#)
        #expect(anonymous.head.headers.first("WWW-Authenticate") == "Bearer")

        let malformed = try await post(port, "/api/devices", json: #"{"device_id":"d1"}"#, headers: ["Authorization": "Bearer not.a.jwt"])
        #expect(malformed.status == 401)
        #expect(malformed.bodyText == #"{"detail":"Invalid token"}"#)
        #expect(malformed.head.headers.first("WWW-Authenticate") == #"Bearer error="invalid_token""#)
        #expect(reached.withLock { $0 } == false)
    }
}
