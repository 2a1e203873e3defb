import Foundation
import LinkConditioner
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A real TCP server on 127.0.0.1 that plays the origin in conditioner tests.
/// Each accepted connection runs `behaviour` on its own thread.
final class TestUpstream: Sendable {
    enum Behaviour: Sendable {
        /// Send `bytes` of `pattern` then close.
        case stream(bytes: Int)
        /// Send the pattern until the peer goes away (bounded by `limit`).
        case endless(limit: Int)
        /// Echo everything back until EOF (or `stop()`), however long the peer is silent.
        case echo
    }

    let address: SocketAddress
    private let listenFD: Int32
    private let running = Mutex(true)
    /// The first bytes each connection received (up to 256), in accept order.
    let received = Mutex<[[UInt8]]>([])
    let accepted = Mutex(0)

    init(behaviour: Behaviour) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else { Glibc.close(fd); throw SocketTestError("upstream bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        listenFD = fd
        address = SocketAddress(host: "127.0.0.1", port: UInt16(bigEndian: addr.sin_port))
        let thread = Thread { [self] in self.acceptLoop(behaviour) }
        thread.start()
    }

    func stop() {
        running.withLock { $0 = false }
        Glibc.shutdown(listenFD, Int32(SHUT_RDWR))
    }

    deinit { Glibc.close(listenFD) }

    private func acceptLoop(_ behaviour: Behaviour) {
        while running.withLock({ $0 }) {
            var pfd = pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            let client = accept(listenFD, nil, nil)
            guard client >= 0 else { continue }
            accepted.withLock { $0 += 1 }
            let index = received.withLock { list in list.append([]); return list.count - 1 }
            Thread { [self] in self.serve(BlockingSocket(fd: client), behaviour, index) }.start()
        }
    }

    private func serve(_ socket: BlockingSocket, _ behaviour: Behaviour, _ index: Int) {
        // Collect what the client (or the conditioner's PROXY line) sends first.
        if case .data(let first) = socket.read(max: 256, timeout: .milliseconds(100)) {
            received.withLock { $0[index] = first }
            if case .echo = behaviour { socket.write(first) }
        }
        switch behaviour {
        case .stream(let bytes):
            var sent = 0
            while sent < bytes {
                let n = min(65536, bytes - sent)
                guard socket.write(pattern(n, from: sent)) else { return }
                sent += n
            }
            socket.shutdownWrite()
            _ = socket.readAll(idle: .seconds(5))
        case .endless(let limit):
            var sent = 0
            while sent < limit, running.withLock({ $0 }) {
                guard socket.write(pattern(16384, from: sent)) else { return }
                sent += 16384
            }
        case .echo:
            // Until the peer goes away or the server stops: a test that is slow to send
            // its next message (a busy machine) must not find the echo gone.
            while running.withLock({ $0 }) {
                switch socket.read(timeout: .seconds(1)) {
                case .data(let chunk): guard socket.write(chunk) else { return }
                case .timedOut: continue
                case .eof, .error: return
                }
            }
        }
    }
}
