import AppNativeTesting
import Foundation
import Testing

/// `deploy/` (Dockerfile, Kubernetes manifests, systemd unit, nginx and Caddy examples, Azure
/// Container Apps template) through `scripts/validate-deploy.sh`: kubernetes-validate, checkov and
/// hadolint from PyPI, `nginx -t`, `caddy validate`, `systemd-analyze`, the cross-file checks and
/// `config check` of the built gateway on each template's configuration.
/// The first run installs the PyPI tools into `.build/deploy-venv` (minutes); later runs reuse it.
@Suite("Deployment files", .timeLimit(.minutes(15)))
struct DeployValidationTests {
    @Test("scripts/validate-deploy.sh passes on deploy/")
    func validateDeploy() async throws {
        let root = ProcessRunner.repositoryRoot()
        let environment = ProcessInfo.processInfo.environment.merging(["APPNATIVE_GATEWAY_BINARY": GatewayExecutable.path]) { $1 }
        let output = try await ProcessRunner.run("/bin/bash", [root + "/scripts/validate-deploy.sh"], environment: environment)
        #expect(output.status == 0, "validate-deploy.sh exited \(output.status)\n\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("validate-deploy summary"), "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("PASS app-native-gateway config check"), "the built gateway was not used:\n\(output.stdout)")
    }
}
