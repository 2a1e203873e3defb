import BenchCore
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A real third-party origin for the recorder's tests: Debian's nginx serving a directory
/// over HTTPS on loopback, with a certificate from a CA of its own (made here by openssl,
/// not Deadzone's), and an access log the tests read to count what was fetched.
final class NginxOrigin: Sendable {
    let directory: String
    let port: Int
    /// A second listener, plain HTTP, serving the same root.
    let plainPort: Int
    private let child: ChildProcess

    /// The CA certificate (PEM) that signed the server's certificate.
    var caFile: String { directory + "/ca.pem" }

    /// `https://127.0.0.1:PORT` + `path`.
    func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    /// `http://127.0.0.1:PLAINPORT` + `path`.
    func plainURL(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(plainPort)\(path)")! }

    /// Serves `root`; `/moved/X` answers 301 to `/X`, `/missing/X` 404.
    static func start(serving root: String) async throws -> NginxOrigin {
        let nginx = try #require(
            ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "nginx is missing: bash .ci/install-deps installs it (apt-get install nginx-light)")
        let directory = NSTemporaryDirectory() + "deadzone-nginx-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/tmp", withIntermediateDirectories: true)
        try await makeCertificates(in: directory)
        for _ in 0..<5 {
            let port = try freePort(), plainPort = try freePort()
            try configuration(root: root, directory: directory, port: port, plainPort: plainPort)
                .write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
            let child = try ChildProcess.spawn(
                nginx, ["-p", directory, "-c", directory + "/nginx.conf", "-e", directory + "/error.log"],
                stderr: .file(directory + "/stderr"), ownProcessGroup: true)
            let started = await pollUntil(within: 30) {
                FileManager.default.fileExists(atPath: directory + "/nginx.pid") || !child.isRunning
            }
            if started, child.isRunning { return NginxOrigin(directory: directory, port: port, plainPort: plainPort, child: child) }
            child.signalGroup(SIGKILL)
            await child.exit()
        }
        let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
        Issue.record("nginx did not start: \(log)")
        throw CancellationError()
    }

    private init(directory: String, port: Int, plainPort: Int, child: ChildProcess) {
        self.directory = directory
        self.port = port
        self.plainPort = plainPort
        self.child = child
    }

    /// Stops nginx (its workers with it) and removes its directory.
    func stop() async {
        child.send(SIGQUIT)
        let stopped = await pollUntil(within: 10) { !self.child.isRunning }
        if !stopped { child.signalGroup(SIGKILL) }
        await child.exit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The access log: `METHOD PATH STATUS BYTES` per request, in order.
    func requests() -> [String] {
        ((try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    private static func makeCertificates(in directory: String) async throws {
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
             "-subj", "/CN=Test CDN Root CA", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"],
            ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "server.pem", "-days", "1", "-extfile", "server.ext"],
        ]
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: directory + "/server.ext", atomically: true, encoding: .utf8)
        for step in steps {
            let made = try await ChildProcess.run("openssl", step, directory: directory, timeout: .seconds(60))
            try #require(made.status == 0, "openssl \(step[0]) failed (bash .ci/install-deps installs openssl): \(made.stderr)")
        }
    }

    private static func configuration(root: String, directory: String, port: Int, plainPort: Int) -> String {
        """
        daemon off;
        user root;
        worker_processes 1;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log warn;
        events { worker_connections 64; }
        http {
            types {
                application/vnd.apple.mpegurl m3u8;
                video/mp2t ts;
                video/mp4 mp4 m4s;
                text/vtt vtt;
                application/octet-stream bin;
            }
            default_type application/octet-stream;
            log_format requests '$request_method $uri $status $body_bytes_sent';
            access_log \(directory)/access.log requests;
            client_body_temp_path \(directory)/tmp/body;
            proxy_temp_path \(directory)/tmp/proxy;
            fastcgi_temp_path \(directory)/tmp/fastcgi;
            uwsgi_temp_path \(directory)/tmp/uwsgi;
            scgi_temp_path \(directory)/tmp/scgi;
            server {
                listen 127.0.0.1:\(port) ssl;
                listen 127.0.0.1:\(plainPort);
                server_name localhost;
                ssl_certificate \(directory)/server.pem;
                ssl_certificate_key \(directory)/server.key;
                root \(root);
                location /moved/ { rewrite ^/moved(/.*)$ $1 permanent; }
                location /missing/ { return 404; }
            }
        }
        """
    }

    /// A loopback port nothing listens on now (nginx needs a number in its configuration).
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        try #require(bound, "cannot bind a loopback port: \(String(cString: strerror(errno)))")
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
