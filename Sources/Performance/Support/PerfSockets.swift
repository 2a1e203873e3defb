#if canImport(Glibc)
import Glibc
#endif

/// Plain POSIX TCP sockets (IPv4 loopback only) for the perf benchmark's clients and servers.
enum PerfSocket {
    /// A listening socket on `host` (a 127/8 address) with a kernel-chosen port.
    static func listen(host: String = "127.0.0.1", backlog: Int32 = 128) throws -> (fd: Int32, port: UInt16) {
        let fd = try make()
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = try sockaddr(host: host, port: 0)
        let bound = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if bound != 0 { let e = errno; close(fd); throw PerfError.system("bind \(host):0", e) }
        if Glibc.listen(fd, backlog) != 0 { let e = errno; close(fd); throw PerfError.system("listen", e) }
        guard let port = localPort(fd) else { close(fd); throw PerfError.system("getsockname") }
        return (fd, port)
    }

    /// A blocking connection to `host:port` with TCP_NODELAY set.
    static func connect(host: String, port: UInt16) throws -> Int32 {
        let fd = try make()
        var address = try sockaddr(host: host, port: port)
        let rc = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if rc != 0 { let e = errno; close(fd); throw PerfError.system("connect \(host):\(port)", e) }
        setNoDelay(fd)
        return fd
    }

    /// Accepts one connection, waiting at most `timeout` seconds. TCP_NODELAY is set on it.
    static func accept(_ listener: Int32, timeout: Double) throws -> Int32 {
        guard waitReadable(listener, timeout: timeout) else { throw PerfError("no connection arrived within \(timeout) s") }
        let fd = Glibc.accept(listener, nil, nil)
        if fd < 0 { throw PerfError.system("accept") }
        setNoDelay(fd)
        return fd
    }

    /// Whether `fd` became readable within `timeout` seconds.
    static func waitReadable(_ fd: Int32, timeout: Double) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = PerfClock.now() + UInt64(timeout * 1e9)
        while true {
            let now = PerfClock.now()
            if now >= deadline { return false }
            let rc = poll(&entry, 1, Int32(min(1000, (deadline - now) / 1_000_000 + 1)))
            if rc > 0 { return true }
            if rc < 0, errno != EINTR { return false }
        }
    }

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Receive and send timeouts, so that no blocking call can hang the benchmark.
    static func setTimeouts(_ fd: Int32, seconds: Double) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// Writes all `count` bytes; false on error or timeout. Never raises SIGPIPE.
    static func writeAll(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = send(fd, base + done, count - done, Int32(MSG_NOSIGNAL))
            if n > 0 { done += n; continue }
            if n < 0, errno == EINTR { continue }
            return false
        }
        return true
    }

    /// Reads exactly `count` bytes; false on EOF, error or timeout.
    static func readExactly(_ fd: Int32, _ base: UnsafeMutableRawPointer, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = recv(fd, base + done, count - done, 0)
            if n > 0 { done += n; continue }
            if n < 0, errno == EINTR { continue }
            return false
        }
        return true
    }

    static func localPort(_ fd: Int32) -> UInt16? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let rc = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return rc == 0 ? UInt16(bigEndian: address.sin_port) : nil
    }

    /// A port that was free on `host` a moment ago (bound to port 0, then closed).
    static func freePort(host: String) throws -> UInt16 {
        let (fd, port) = try listen(host: host)
        close(fd)
        return port
    }

    private static func make() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 { throw PerfError.system("socket") }
        return fd
    }

    private static func sockaddr(host: String, port: UInt16) throws -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1, host.hasPrefix("127.") else {
            throw PerfError("\(host) is not a 127.0.0.0/8 address")
        }
        return address
    }
}
