import AppNativeTesting
import Foundation

/// A real nginx for integration tests: one worker, no master, no daemon, everything (pid, logs,
/// temp files) in its own temporary prefix, listening on a loopback port it cannot choose itself:
/// `LoopbackPorts.start` picks a free one and starts it again on another if it loses that one.
/// `http` is the body of the `http {}` block; `{port}` in it is replaced by the listening port.
enum NginxPeer {
    static func start(http: String) async throws -> ForwardAuthTests.Front {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("error.log").path
        do {
            let (child, ports) = try await LoopbackPorts.start(
                "nginx", ports: 1, explain: { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            ) { ports in
                let configuration = """
                    worker_processes 1;
                    daemon off;
                    master_process off;
                    pid \(directory.path)/nginx.pid;
                    error_log \(log) warn;
                    events { worker_connections 1024; }
                    http {
                      access_log off;
                      client_body_temp_path \(directory.path);
                      proxy_temp_path \(directory.path);
                      fastcgi_temp_path \(directory.path);
                      uwsgi_temp_path \(directory.path);
                      scgi_temp_path \(directory.path);
                    \(http.replacingOccurrences(of: "{port}", with: String(ports[0])))
                    }
                    """
                try configuration.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
                return try ChildProcess(["/usr/sbin/nginx", "-c", directory.appendingPathComponent("nginx.conf").path, "-p", directory.path])
            }
            return ForwardAuthTests.Front(child: child, port: ports[0], directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }
}
