import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the app reaches the bench: its stdin and stdout (an app `bench` starts as a child
/// process), or a TCP connection whose first line carries the launch's token (`bench
/// --agent-listen`, the app started by `--launch`).
public enum BenchConnection: Sendable, Equatable {
    case standardStreams
    case socket(host: String, port: Int, token: String)

    /// A socket when the launch's environment names one (`DEADZONE_CONNECT`, `HOST:PORT`,
    /// and `DEADZONE_TOKEN`), else the standard streams.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(KitError) -> BenchConnection {
        guard let address = environment["DEADZONE_CONNECT"], !address.isEmpty else { return .standardStreams }
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
              (1...65_535).contains(port)
        else { throw .invalid("DEADZONE_CONNECT is \(address), not HOST:PORT") }
        return .socket(host: String(address[..<colon]), port: port, token: environment["DEADZONE_TOKEN"] ?? "")
    }

    /// The descriptors lines are read from and written to, the connect line sent.
    func open() throws(KitError) -> (read: Int32, write: LineWriter) {
        switch self {
        case .standardStreams:
            return (STDIN_FILENO, LineWriter(descriptor: STDOUT_FILENO, isSocket: false))
        case .socket(let host, let port, let token):
            let descriptor = try Self.connect(host: host, port: port)
            let writer = LineWriter(descriptor: descriptor, isSocket: true)
            try writer.write(["type": "connect", "token": token])
            return (descriptor, writer)
        }
    }

    private static func connect(host: String, port: Int) throws(KitError) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw .invalid("DEADZONE_CONNECT's host \(host) is not an IPv4 address")
        }
        #if canImport(Glibc)
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw .harnessGone("socket: \(String(cString: strerror(errno)))") }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                Darwin.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        guard status == 0 else {
            let why = String(cString: strerror(errno))
            close(descriptor)
            throw .harnessGone("cannot connect to \(host):\(port): \(why)")
        }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return descriptor
    }
}
