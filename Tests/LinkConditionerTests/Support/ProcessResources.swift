import Foundation

/// What this test process holds (its threads and sockets), for tests that filter it to
/// one conditioner so that tests running in parallel do not disturb the count.
enum ProcessResources {
    /// Threads of this process whose name is `name`.
    static func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return comm.trimmingCharacters(in: .whitespacesAndNewlines) == name
        }.count
    }

    struct TCPSocket: Equatable {
        var localHost: String, localPort: UInt16, remoteHost: String, remotePort: UInt16, state: Int
    }

    /// `state` of a listening socket (the kernel's TCP_LISTEN), of a connected one
    /// (TCP_ESTABLISHED), and of any other (bound or connecting, TCP_CLOSE).
    static let listening = 0x0A, connected = 0x01, other = 0x07

    /// IPv4 TCP sockets that file descriptors of this process hold, each asked directly
    /// (`getsockname`, `getpeername`, `SO_ACCEPTCONN`).
    ///
    /// Not read from `/proc/self/net/tcp`: that table is the whole namespace's, read in
    /// several `read` calls, and sockets that other tests open and close meanwhile make
    /// it list a socket twice or not at all (seen: a conditioner's count of 13 read as 14).
    static func openTCPSockets() -> [TCPSocket] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var seen = Set<String>()
        return fds.compactMap { name -> TCPSocket? in
            guard let fd = Int32(name),
                  let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                  target.hasPrefix("socket:["), seen.insert(target).inserted else { return nil }
            return tcpSocket(fd)
        }
    }

    /// What `fd` is, when it is an IPv4 stream socket (nil for anything else, or an fd
    /// closed since it was listed).
    private static func tcpSocket(_ fd: Int32) -> TCPSocket? {
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue),
              let local = address(fd, getsockname) else { return nil }
        var accepting: Int32 = 0
        length = socklen_t(MemoryLayout<Int32>.size)
        let isListening = getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) == 0 && accepting != 0
        let remote = isListening ? nil : address(fd, getpeername)
        let state = isListening ? listening : (remote == nil ? other : connected)
        return TCPSocket(localHost: local.host, localPort: local.port, remoteHost: remote?.host ?? "0.0.0.0",
                         remotePort: remote?.port ?? 0, state: state)
    }

    private static func address(
        _ fd: Int32, _ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> (host: String, port: UInt16)? {
        var storage = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, &length) }
        }
        guard rc == 0, storage.sin_family == sa_family_t(AF_INET) else { return nil }
        let address = UInt32(bigEndian: storage.sin_addr.s_addr)
        let host = (0..<4).map { String((address >> (8 * (3 - $0))) & 0xFF) }.joined(separator: ".")
        return (host, UInt16(bigEndian: storage.sin_port))
    }
}
