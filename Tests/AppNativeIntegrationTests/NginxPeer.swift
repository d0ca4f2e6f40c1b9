import AppNativeTesting
import Foundation

/// A real nginx for integration tests: one worker, no master, no daemon, everything (pid, logs,
/// temp files) in its own temporary prefix, listening on a free loopback port. `http` is the
/// body of the `http {}` block; `{port}` in it is replaced by the listening port.
enum NginxPeer {
    static func start(http: String) async throws -> ForwardAuthTests.Front {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try ForwardAuthTests.freePort()
        let configuration = """
            worker_processes 1;
            daemon off;
            master_process off;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log warn;
            events { worker_connections 1024; }
            http {
              access_log off;
              client_body_temp_path \(directory.path);
              proxy_temp_path \(directory.path);
              fastcgi_temp_path \(directory.path);
              uwsgi_temp_path \(directory.path);
              scgi_temp_path \(directory.path);
            \(http.replacingOccurrences(of: "{port}", with: String(port)))
            }
            """
        try configuration.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let child = try ChildProcess(["/usr/sbin/nginx", "-c", directory.appendingPathComponent("nginx.conf").path, "-p", directory.path])
        try await ForwardAuthTests.waitUntilListening(port)
        return ForwardAuthTests.Front(child: child, port: port, directory: directory)
    }
}
