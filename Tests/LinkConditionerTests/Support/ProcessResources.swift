import Foundation

/// What this test process holds, read from /proc, filtered to one conditioner so
/// that tests running in parallel do not disturb the count.
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

    /// TCP sockets (IPv4) that file descriptors of this process point at.
    static func openTCPSockets() -> [TCPSocket] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var inodes = Set<String>()
        for fd in fds {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
                  target.hasPrefix("socket:[") else { continue }
            inodes.insert(String(target.dropFirst(8).dropLast()))
        }
        let table = readProcFile("/proc/self/net/tcp")
        return table.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: " ")
            guard columns.count > 9, inodes.contains(String(columns[9])) else { return nil }
            let (lh, lp) = endpoint(columns[1]), (rh, rp) = endpoint(columns[2])
            return TCPSocket(localHost: lh, localPort: lp, remoteHost: rh, remotePort: rp,
                             state: Int(columns[3], radix: 16) ?? -1)
        }
    }

    /// Reads a /proc file to its end (they report size 0, so read until EOF).
    private static func readProcFile(_ path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        var data = Data()
        while let chunk = try? handle.read(upToCount: 65536), !chunk.isEmpty { data.append(chunk) }
        return String(decoding: data, as: UTF8.self)
    }

    /// `0200007F:1F90` → ("127.0.0.2", 8080)
    private static func endpoint(_ text: Substring) -> (String, UInt16) {
        let parts = text.split(separator: ":")
        let address = UInt32(parts[0], radix: 16) ?? 0
        let host = (0..<4).map { String((address >> (8 * $0)) & 0xFF) }.joined(separator: ".")
        return (host, UInt16(parts[1], radix: 16) ?? 0)
    }
}
