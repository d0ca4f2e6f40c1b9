import AppNativeTesting
import Foundation
import Glibc
import Testing

/// nginx (installed by `scripts/install-deps.sh`) serving HTTP/2: over TLS with ALPN on one
/// port and as cleartext h2c (prior knowledge only) on another, both on 127.0.0.1.
///
/// nginx cannot report a port the kernel chose, so it is started on ports found free, and again
/// on new ones when it loses one of them to another process (`LoopbackPorts.start`). Every response carries
/// `X-Peer-Port` (`$remote_port`), which shows whether requests shared one connection.
final class NginxPeer: Sendable {
    let tlsPort: Int
    let cleartextPort: Int
    private let child: ChildProcess
    private let folder: URL

    struct StartFailed: Error, CustomStringConvertible {
        var description: String
    }

    static var executable: String {
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx"
    }

    static func start(certificates: TestCertificates) async throws -> NginxPeer {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("appnative-client-nginx-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let root = folder.appendingPathComponent("www")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try Data(repeating: 0x61, count: 2 * 1024 * 1024).write(to: root.appendingPathComponent("big"))
            try Data(#"{"ok":true}"#.utf8).write(to: root.appendingPathComponent("json"))
            let log = folder.appendingPathComponent("error.log").path
            let (child, ports) = try await LoopbackPorts.start(
                "nginx", ports: 2, explain: { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            ) { ports in
                let configurationFile = folder.appendingPathComponent("nginx.conf").path
                try configuration(folder: folder, root: root, tlsPort: ports[0], cleartextPort: ports[1], certificates: certificates)
                    .write(toFile: configurationFile, atomically: true, encoding: .utf8)
                return try ChildProcess(
                    [Self.executable, "-p", folder.path, "-e", "stderr", "-c", configurationFile], stderrFile: log)
            }
            return NginxPeer(tlsPort: ports[0], cleartextPort: ports[1], child: child, folder: folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    private init(tlsPort: Int, cleartextPort: Int, child: ChildProcess, folder: URL) {
        self.tlsPort = tlsPort
        self.cleartextPort = cleartextPort
        self.child = child
        self.folder = folder
    }

    private static func configuration(folder: URL, root: URL, tlsPort: Int, cleartextPort: Int, certificates: TestCertificates) -> String {
        let locations = """
                root \(root.path);
                location / { add_header X-Peer-Port $remote_port always; default_type application/json; }
            """
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(folder.path)/nginx.pid;
            error_log stderr error;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(folder.path)/client_body;
                proxy_temp_path \(folder.path)/proxy;
                fastcgi_temp_path \(folder.path)/fastcgi;
                uwsgi_temp_path \(folder.path)/uwsgi;
                scgi_temp_path \(folder.path)/scgi;
                server {
                    listen 127.0.0.1:\(tlsPort) ssl http2;
                    ssl_certificate \(certificates.certificateFile);
                    ssl_certificate_key \(certificates.keyFile);
            \(locations)
                }
                server {
                    listen 127.0.0.1:\(cleartextPort) http2;
            \(locations)
                }
            }
            """
    }

    func url(_ path: String, tls: Bool = true) -> String {
        tls ? "https://localhost:\(tlsPort)\(path)" : "http://127.0.0.1:\(cleartextPort)\(path)"
    }

    /// Kills and reaps nginx and removes its configuration and document folder.
    func stop() {
        child.kill()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Starts nginx once around a suite and kills and reaps it afterwards.
struct NginxPeerTrait: SuiteTrait, TestScoping {
    @TaskLocal static var current: NginxPeer?

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let peer = try await NginxPeer.start(certificates: TestCertificates.shared())
        defer { peer.stop() }
        try await Self.$current.withValue(peer) { try await function() }
    }
}

extension Trait where Self == NginxPeerTrait {
    /// Shares one nginx HTTP/2 peer across the suite's tests.
    static var nginxPeer: Self { Self() }
}
