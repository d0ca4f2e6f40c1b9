import AppNativeTesting
import Foundation
import Glibc
import Testing

/// nginx (installed by `scripts/install-deps.sh`) serving HTTP/2: over TLS with ALPN on one
/// port and as cleartext h2c (prior knowledge only) on another, both on 127.0.0.1.
///
/// nginx cannot report a port the kernel chose, so the ports are picked by binding port 0 and
/// closing it again; a start that loses that race is retried. Every response carries
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
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try NginxPeer.startBlocking(certificates: certificates) })
            }
        }
    }

    private static func startBlocking(certificates: TestCertificates) throws -> NginxPeer {
        var lastError: any Error = StartFailed(description: "nginx did not start")
        for _ in 0..<3 {
            do {
                return try NginxPeer(certificates: certificates)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private init(certificates: TestCertificates) throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("appnative-client-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        var isStarted = false
        defer { if !isStarted { try? FileManager.default.removeItem(at: folder) } }
        let root = folder.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data(repeating: 0x61, count: 2 * 1024 * 1024).write(to: root.appendingPathComponent("big"))
        try Data(#"{"ok":true}"#.utf8).write(to: root.appendingPathComponent("json"))

        tlsPort = try closedLoopbackPort()
        cleartextPort = try closedLoopbackPort()
        let locations = """
                root \(root.path);
                location / { add_header X-Peer-Port $remote_port always; default_type application/json; }
            """
        let configuration = """
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
        let configurationFile = folder.appendingPathComponent("nginx.conf").path
        try configuration.write(toFile: configurationFile, atomically: true, encoding: .utf8)
        child = try ChildProcess([Self.executable, "-p", folder.path, "-e", "stderr", "-c", configurationFile])
        guard Self.waitUntilAccepting(ports: [tlsPort, cleartextPort]) else {
            child.kill()
            throw StartFailed(description: "nginx did not listen on \(tlsPort) and \(cleartextPort)")
        }
        isStarted = true
    }

    func url(_ path: String, tls: Bool = true) -> String {
        tls ? "https://localhost:\(tlsPort)\(path)" : "http://127.0.0.1:\(cleartextPort)\(path)"
    }

    /// Kills and reaps nginx and removes its configuration and document folder.
    func stop() {
        child.kill()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Polls with `connect` until every port accepts; a bounded readiness wait, not a timing check.
    private static func waitUntilAccepting(ports: [Int]) -> Bool {
        for _ in 0..<500 {
            if ports.allSatisfy(isAccepting) { return true }
            usleep(10_000)
        }
        return false
    }

    private static func isAccepting(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
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
