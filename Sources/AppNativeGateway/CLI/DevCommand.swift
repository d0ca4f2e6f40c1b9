import AppNativeCore
import AppNativeDevPeers

/// `dev`: what `make run` shows until the gateway serves (later issues start the gateway here).
enum DevCommand {
    static func run(environment: [String: String]) throws -> ExitCode {
        let provider = try DevKeyLocator.devIdentityProvider(environment: environment)
        let token = try provider.token(issuedAt: SystemTimeSource().wallSeconds)
        print("""
            app-native-gateway \(GatewayVersion.current) (dev setup — DEV KEYS ONLY)

            dev tenant:    \(DevIdentityProvider.tenantID)
            dev audience:  \(DevIdentityProvider.audience)
            dev token (valid 1 h, signed with keys/dev/entra-dev-rsa.pem):

            \(token)

            try it:
              echo "$TOKEN" | .build/debug/app-native-gateway token verify --dev
            """)
        return .success
    }
}
