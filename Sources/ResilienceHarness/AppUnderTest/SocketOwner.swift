import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether a process holds the other end of a loopback TCP connection, read from Linux's
/// `/proc`: the peer's socket is the row of `/proc/net/tcp` whose local address is this
/// socket's peer and whose remote address is this socket's own; the process holds it
/// when one of `/proc/<pid>/fd` links to `socket:[<its inode>]`. So a pid an app claims
/// is killed only when it is the process at the other end of the app's connection.
enum SocketOwner {
    /// Whether `pid` holds the peer end of the connected IPv4 socket `socket`.
    static func holdsPeer(of socket: Int32, pid: Int32) -> Bool {
        guard let local = address(socket, peer: false), let peer = address(socket, peer: true),
            let inode = inode(local: peer, remote: local)
        else { return false }
        let directory = "/proc/\(pid)/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
        return entries.contains { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + entry)) == "socket:[\(inode)]"
        }
    }

    /// `0100007F:9C40`: an IPv4 socket address as `/proc/net/tcp` writes it.
    static func address(_ socket: Int32, peer: Bool) -> String? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let status = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(socket, $0, &length) : getsockname(socket, $0, &length)
            }
        }
        guard status == 0, address.sin_family == sa_family_t(AF_INET) else { return nil }
        return String(format: "%08X:%04X", address.sin_addr.s_addr, UInt16(bigEndian: address.sin_port))
    }

    /// The inode of the socket whose row in `/proc/net/tcp` has these addresses.
    static func inode(local: String, remote: String) -> String? {
        // Read with read(2): a /proc file's size is 0 to stat, and Foundation reads nothing.
        guard let table = AgentProcess.contents(of: "/proc/net/tcp") else { return nil }
        for row in table.split(separator: "\n").dropFirst() {
            let fields = row.split(separator: " ")
            if fields.count > 9, fields[1] == local, fields[2] == remote { return String(fields[9]) }
        }
        return nil
    }
}
