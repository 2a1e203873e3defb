import BenchCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where apps that speak the protocol over TCP connect (`--agent-listen HOST:PORT`):
/// one listening socket for a whole run, each connection routed to the launch that
/// waits for it by the token that launch was given (`DEADZONE_TOKEN`).
///
/// A connection's first line must be `{"type":"connect","token":"…"}` with a token the
/// harness handed out and no connection used yet; any other is answered with
/// `{"type":"refused","error":"…"}` and closed, and kept in `refusals` so that the launch
/// still waiting can say why no app reached it. An accept thread of its own takes the
/// connections, a short-lived thread reads each one's first line (at most 10 s, 4 KiB), and
/// time limits are `Timekeeper` timers: nothing here waits for Swift's cooperative pool.
/// IPv4 only. Every method may be called from any task or thread.
public final class AppListener: Sendable {
    /// The address apps connect to, the port as bound (`127.0.0.1:40123`).
    public let address: String
    let descriptor: Int32
    let state = Mutex(State())

    struct State {
        /// Tokens handed out and not connected yet.
        var expected: Set<String> = []
        /// Connections whose token no launch waits for yet (the app was quicker).
        var arrived: [String: Int32] = [:]
        var waiting: [String: CheckedContinuation<Result<Int32, AgentProcessError>, Never>] = [:]
        /// Why connections were refused, oldest first (at most 20 kept).
        var refusals: [String] = []
        var closed = false
    }

    /// How long a connection may take to send its first line.
    static let connectLineTimeout: Int32 = 10_000

    /// Binds `host:port` (port 0: any free port) and starts accepting.
    /// - Throws: `AgentProcessError.io` when the address is not IPv4 or cannot be bound.
    public static func listen(_ hostAndPort: String) throws(AgentProcessError) -> AppListener {
        let parts = hostAndPort.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = UInt16(parts[1]) else {
            throw .io("--agent-listen \(hostAndPort) is not HOST:PORT (e.g. 127.0.0.1:0 for any free port)")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, String(parts[0]), &address.sin_addr) == 1 else {
            throw .io("--agent-listen \(hostAndPort): \(parts[0]) is not an IPv4 address (e.g. 127.0.0.1, or 0.0.0.0 for every interface)")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .io("cannot open a socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .io("--agent-listen \(hostAndPort): cannot listen there: \(reason)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let listener = AppListener(descriptor: fd, address: "\(parts[0]):\(UInt16(bigEndian: actual.sin_port))")
        let thread = Thread {
            ThreadName.apply("app-listener")
            listener.acceptLoop()
        }
        thread.name = "app-listener"
        thread.start()
        return listener
    }

    private init(descriptor: Int32, address: String) {
        self.descriptor = descriptor
        self.address = address
    }

    /// A new token for one launch, expected from now on (before the app is started, so a
    /// quick app is not refused).
    public func expect() -> String {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
        state.withLock { _ = $0.expected.insert(token) }
        return token
    }

    /// Why connections were refused so far (the last 20).
    public var refusals: [String] { state.withLock { $0.refusals } }

    /// Waits for the connection carrying `token` (its descriptor, owned by the caller
    /// then), or fails: `.neverConnected` after `timeout`, or `failure` as soon as
    /// `check()` returns one (asked every 100 ms: the launch command died, say).
    func connection(
        token: String, timeout: Duration, check: @escaping @Sendable () -> AgentProcessError? = { nil }
    ) async -> Result<Int32, AgentProcessError> {
        let deadline = ContinuousClock.now + timeout
        let timer = Mutex<Timekeeper.Timer?>(nil)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Int32, AgentProcessError>, Never>) in
            let ready: Int32? = state.withLock { state in
                if let fd = state.arrived.removeValue(forKey: token) { return fd }
                state.waiting[token] = continuation
                return nil
            }
            if let ready { return continuation.resume(returning: .success(ready)) }
            @Sendable func tick() {
                let failure = ContinuousClock.now >= deadline
                    ? AgentProcessError.neverConnected(seconds: timeout.seconds, address: address, refused: refusals) : check()
                if let failure {
                    state.withLock { $0.waiting.removeValue(forKey: token) }?.resume(returning: .failure(failure))
                    return
                }
                guard state.withLock({ $0.waiting[token] != nil }) else { return }
                timer.withLock { $0 = Timekeeper.shared.schedule(after: .milliseconds(100), tick) }
            }
            timer.withLock { $0 = Timekeeper.shared.schedule(after: .milliseconds(100), tick) }
        }
        timer.withLock { $0?.cancel() }
        if case .failure = result { state.withLock { _ = $0.expected.remove(token) } }
        return result
    }

    /// No longer expects `token` (its launch was given up); a connection already in with
    /// it is closed.
    func forget(_ token: String) {
        let arrived = state.withLock { state in
            state.expected.remove(token)
            return state.arrived.removeValue(forKey: token)
        }
        if let arrived { Glibc.close(arrived) }
    }

    /// Stops accepting; connections not claimed yet are closed. Once: a second call does nothing.
    public func close() {
        let ending = state.withLock { state -> (waiting: [CheckedContinuation<Result<Int32, AgentProcessError>, Never>], arrived: [Int32])? in
            guard !state.closed else { return nil }
            state.closed = true
            defer { (state.waiting, state.arrived) = ([:], [:]) }
            return (Array(state.waiting.values), Array(state.arrived.values))
        }
        guard let (waiting, arrived) = ending else { return }
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
        for fd in arrived { Glibc.close(fd) }
        for waiter in waiting { waiter.resume(returning: .failure(.io("the harness stopped listening"))) }
    }

    deinit { if !state.withLock({ $0.closed }) { Glibc.close(descriptor) } }

    // MARK: The accept thread

    private func acceptLoop() {
        while true {
            let fd = accept(descriptor, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE { continue }
                return  // closed
            }
            if state.withLock({ $0.closed }) {
                Glibc.close(fd)
                return
            }
            let reader = Thread {
                ThreadName.apply("app-admit")
                self.admit(fd)
            }
            reader.name = "app-connect"
            reader.start()
        }
    }

    /// Reads `fd`'s first line and hands the connection to its launch, or refuses it.
    private func admit(_ fd: Int32) {
        let outcome = Self.readConnectLine(fd)
        let verdict: String? = state.withLock { state in
            guard case .token(let token) = outcome else {
                if case .refused(let why) = outcome { return why }
                return "no token"
            }
            guard state.expected.remove(token) != nil else {
                return "token \(token.prefix(8))… is not one the harness handed out, or its launch was given up or connected already"
            }
            if let waiter = state.waiting.removeValue(forKey: token) {
                waiter.resume(returning: .success(fd))
            } else {
                state.arrived[token] = fd
            }
            return nil
        }
        guard let verdict else { return }
        let line = (try? JSONSerialization.data(withJSONObject: ["type": "refused", "error": verdict])) ?? Data()
        _ = (line + Data("\n".utf8)).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        Glibc.close(fd)
        state.withLock { state in
            state.refusals.append(verdict)
            if state.refusals.count > 20 { state.refusals.removeFirst() }
        }
    }

    /// The token of `{"type":"connect","token":"…"}`, read byte by byte up to the first
    /// newline (nothing after it is consumed: the protocol's lines follow), or why not.
    static func readConnectLine(_ fd: Int32) -> ConnectLine {
        var bytes: [UInt8] = []
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        while bytes.count < 4096 {
            let ready = poll(&poller, 1, connectLineTimeout)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return .refused("no connect line within \(connectLineTimeout / 1000) s") }
            let count = recv(fd, &byte, 1, 0)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return .refused("the connection closed before its connect line ended") }
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            object["type"] as? String == "connect", let token = object["token"] as? String
        else {
            return .refused("the first line is not {\"type\":\"connect\",\"token\":\"<DEADZONE_TOKEN>\"} "
                + "(docs/app-protocol.md, over a socket): \(String(decoding: bytes.prefix(120), as: UTF8.self))")
        }
        return .token(token)
    }

    /// What a connection's first line gave: its token, or why it is refused.
    enum ConnectLine {
        case token(String)
        case refused(String)
    }
}
