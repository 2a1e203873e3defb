import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Section 6: CPU of a child `bench proxy` shaping many concurrent connections.
enum PerfScale {
    static let totalRate = 200e6
    static let readerThreads = 2

    static func profileYAML(connections: Int) -> String {
        """
        name: perf-scale
        description: bench perf proxy - \(connections) connections sharing 200 Mbit/s, 20 ms, 256 KiB queue
        seed: 1
        duration: 1h
        interfaces:
          wifi:
            downlink: {rate: 200Mbit/s, delay: 20ms, queue: 256KiB}

        """
    }

    static func run(connections: Int, warmup: Double, seconds: Double, benchExecutable: String? = nil) -> PerfSection {
        var section = PerfSection(
            id: "cpu",
            title: "CPU for \(connections) concurrent shaped connections",
            method: """
                A child process (this executable: `bench proxy --duration forever`) on a temp profile: wifi \
                downlink 200 Mbit/s shared, 20 ms delay, 256 KiB queue limit. An in-process origin (one poll() \
                thread) writes continuously on every upstream connection; \(connections) client connections are \
                read by \(readerThreads) poll() threads. After a \(PerfFormat.number(warmup)) s warm-up, the \
                child's utime+stime (/proc/<pid>/stat) and the bytes received are sampled over \
                \(PerfFormat.number(seconds)) s. CPU % is of one core. For scale, the same link is first measured \
                with \(baseline(connections)) connections for half as long.
                """
        )
        do {
            let small = try measure(connections: baseline(connections), warmup: warmup, seconds: max(1, seconds / 2),
                                    benchExecutable: benchExecutable)
            let result = try measure(connections: connections, warmup: warmup, seconds: seconds, benchExecutable: benchExecutable)
            section.figures.append(PerfFigure("child proxy CPU", result.cpuPercent, unit: "%",
                                              display: String(format: "%.1f%% of a core", result.cpuPercent),
                                              target: PerfTarget(.below(100), text: "< 100%")))
            section.figures.append(PerfFigure("  of which user / system", result.userPercent, unit: "%",
                                              display: String(format: "%.1f%% / %.1f%%", result.userPercent,
                                                              result.cpuPercent - result.userPercent)))
            section.figures.append(PerfFigure("same link, \(baseline(connections)) connections", small.cpuPercent, unit: "%",
                                              display: String(format: "%.1f%% of a core (%.1f Mbit/s)", small.cpuPercent,
                                                              small.goodput / 1e6)))
            section.figures.append(PerfFigure("aggregate goodput", result.goodput / 1e6, unit: "Mbit/s",
                                              display: String(format: "%.1f Mbit/s", result.goodput / 1e6)))
            section.figures.append(PerfFigure("goodput / 200 Mbit/s", result.goodput / totalRate, unit: "",
                                              display: String(format: "%.3f", result.goodput / totalRate)))
            section.figures.append(PerfFigure("connections open at the end", Double(result.open), unit: "",
                                              display: "\(result.open) / \(connections)"))
            section.figures.append(PerfFigure("CPU per Gbit forwarded", result.cpuPercent / max(1e-9, result.goodput / 1e9),
                                              unit: "%/Gbit/s",
                                              display: String(format: "%.0f%% core per Gbit/s", result.cpuPercent / max(1e-9, result.goodput / 1e9))))
            section.notes.append(String(format: "this process (origin + clients) used %.1f%% of a core meanwhile", result.parentPercent))
            section.notes.append("connecting all \(connections) took " + String(format: "%.2f s", result.connectSeconds))
            if !result.threads.isEmpty { section.notes.append("child threads by CPU over the window: " + result.threads) }
            if let counters = result.childCounters { section.notes.append("child counters at exit: " + counters) }
        } catch {
            section.error = "\(error)"
        }
        return section
    }

    /// The connection count of the comparison run.
    static func baseline(_ connections: Int) -> Int { max(1, connections / 10) }

    struct Result {
        var cpuPercent: Double
        var userPercent: Double
        var goodput: Double
        var open: Int
        var parentPercent: Double
        var connectSeconds: Double
        var threads: String
        var childCounters: String?
    }

    static func measure(connections: Int, warmup: Double, seconds: Double, benchExecutable: String?) throws -> Result {
        try PerfLimits.raiseOpenFiles(to: 2 * connections + 512)
        let origin = try PerfFanoutServer(maxConnections: connections)
        defer { origin.stop() }
        let child = try PerfChildProxy(profileYAML: profileYAML(connections: connections), upstreamPort: origin.port,
                                       benchExecutable: benchExecutable)
        defer { child.terminate() }

        // Connect in batches, letting the child accept and connect upstream before the next batch.
        // The readers drain every socket from the moment it is connected.
        let readers = try PerfFanoutReaders(threads: readerThreads)
        defer { readers.stop() }
        var connected = 0
        let connectStart = PerfClock.now()
        let batch = 100
        while connected < connections {
            for _ in 0..<min(batch, connections - connected) {
                let fd = try PerfSocket.connect(host: child.wifiHost, port: child.wifiPort)
                PerfSocket.setNonBlocking(fd)
                readers.add(fd)
                connected += 1
            }
            let deadline = PerfClock.now() + 10_000_000_000
            while origin.accepted.current < connected {
                guard PerfClock.now() < deadline else {
                    throw PerfError("the origin saw \(origin.accepted.current) of \(connected) upstream connections after 10 s")
                }
                guard child.isAlive else { throw PerfError("the child proxy died while connecting") }
                PerfClock.sleep(seconds: 0.002)
            }
        }
        let connectSeconds = PerfClock.seconds(PerfClock.now() - connectStart)

        PerfClock.sleep(seconds: warmup)
        guard child.isAlive else { throw PerfError("the child proxy died during the warm-up") }
        let ticks0 = Dictionary(child.threadTicks().map { ($0.name, $0.ticks) }, uniquingKeysWith: +)
        let cpu0 = try child.cpuSeconds(), bytes0 = readers.bytes.current, t0 = PerfClock.now()
        let self0 = selfCPUSeconds()
        PerfClock.sleep(seconds: seconds)
        let cpu1 = try child.cpuSeconds(), bytes1 = readers.bytes.current, t1 = PerfClock.now()
        let self1 = selfCPUSeconds()
        let ticks1 = Dictionary(child.threadTicks().map { ($0.name, $0.ticks) }, uniquingKeysWith: +)
        guard child.isAlive else { throw PerfError("the child proxy died during the measurement") }
        let elapsed = PerfClock.seconds(t1 - t0)
        let open = connections - readers.ended.current
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let threads = ticks1.map { name, ticks in (name, Double(ticks - (ticks0[name] ?? 0)) / ticksPerSecond / elapsed * 100) }
            .filter { $0.1 >= 0.5 }
            .sorted { $0.1 > $1.1 }
            .map { String(format: "%@ %.1f%%", $0.0, $0.1) }
            .joined(separator: ", ")

        // Stop the child before closing the clients, so its exit counters describe the run (closing
        // sockets with unread bytes would send RSTs it would count as resets).
        let log = child.terminate()
        readers.stop()
        let counters = log.split(separator: "\n").first { $0.hasPrefix("wifi ") && $0.contains("up") && !$0.contains(":") }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        return Result(cpuPercent: (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / elapsed * 100,
                      userPercent: (cpu1.user - cpu0.user) / elapsed * 100,
                      goodput: Double(bytes1 - bytes0) * 8 / elapsed,
                      open: open,
                      parentPercent: (self1 - self0) / elapsed * 100,
                      connectSeconds: connectSeconds,
                      threads: threads,
                      childCounters: counters.map { "interface state accepted reset closed down-bytes up-bytes lost: " + $0 })
    }

    static func selfCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

/// An origin for many connections: one thread poll()s the listener and every accepted
/// socket and writes 64 KiB whenever a socket has room, until `stop()`.
final class PerfFanoutServer: Sendable {
    let port: UInt16
    let accepted = PerfCounter()
    private let listener: Int32
    private let stopping = PerfFlag()
    private let thread = Mutex<PerfThread<Void>?>(nil)

    init(maxConnections: Int) throws {
        (listener, port) = try PerfSocket.listen(backlog: 4096)
        PerfSocket.setNonBlocking(listener)
        let started = try PerfThread<Void>.start(name: "perf-origin") { [self] in loop(maxConnections) }
        thread.withLock { $0 = started }
    }

    func stop() {
        stopping.set()
        if let running = thread.withLock({ value -> PerfThread<Void>? in defer { value = nil }; return value }) {
            running.join()
            close(listener)
        }
    }

    private func loop(_ maxConnections: Int) {
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0x44, count: size)
        var polls = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
        defer { for entry in polls.dropFirst() { close(entry.fd) } }
        let deadline = PerfClock.now() + 900_000_000_000
        while !stopping.isSet, PerfClock.now() < deadline {
            let ready = poll(&polls, nfds_t(polls.count), 20)
            if ready <= 0 { continue }
            var dead: Set<Int32> = []
            for i in polls.indices.dropFirst() where polls[i].revents != 0 {
                let fd = polls[i].fd
                if polls[i].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { dead.insert(fd); continue }
                let n = send(fd, buffer, size, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                if n < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR { dead.insert(fd) }
            }
            PerfClock.sleep(seconds: 0.004)
            if !dead.isEmpty {
                for fd in dead { close(fd) }
                polls.removeAll { dead.contains($0.fd) && $0.fd != listener }
            }
            if polls[0].revents != 0 {
                while polls.count <= maxConnections {
                    let fd = accept(listener, nil, nil)
                    if fd < 0 { break }
                    PerfSocket.setNonBlocking(fd)
                    polls.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0))
                    accepted.add(1)
                }
            }
        }
    }
}

/// Reads (and discards) from many non-blocking client sockets with a few poll() threads,
/// from the moment each socket is added (so no backlog builds up while the rest connect).
/// Owns the sockets: `stop()` closes them.
final class PerfFanoutReaders: Sendable {
    let bytes = PerfCounter()
    let ended = PerfCounter()
    /// Sockets added but not yet picked up, per reader thread.
    private let inboxes: Mutex<[[Int32]]>
    private let threadCount: Int
    private let all = Mutex<[Int32]>([])
    private let stopping = PerfFlag()
    private let threads = Mutex<[PerfThread<Void>]>([])

    init(threads count: Int) throws {
        threadCount = max(1, count)
        inboxes = Mutex([[Int32]](repeating: [], count: threadCount))
        for index in 0..<threadCount {
            let thread = try PerfThread<Void>.start(name: "perf-client") { [self] in read(index) }
            threads.withLock { $0.append(thread) }
        }
    }

    /// Hands a connected non-blocking socket to one of the reader threads.
    func add(_ fd: Int32) {
        let count = all.withLock { list in list.append(fd); return list.count }
        inboxes.withLock { $0[count % threadCount].append(fd) }
    }

    /// Joins the threads and closes every socket. Idempotent.
    func stop() {
        stopping.set()
        for thread in threads.withLock({ value in defer { value = [] }; return value }) { thread.join() }
        for fd in all.withLock({ value in defer { value = [] }; return value }) { close(fd) }
    }

    private func read(_ index: Int) {
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { buffer.deallocate() }
        var polls: [pollfd] = []
        let deadline = PerfClock.now() + 900_000_000_000
        while !stopping.isSet, PerfClock.now() < deadline {
            let added = inboxes.withLock { value in defer { value[index] = [] }; return value[index] }
            polls += added.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard !polls.isEmpty else { PerfClock.sleep(seconds: 0.002); continue }
            let ready = poll(&polls, nfds_t(polls.count), 10)
            if ready <= 0 { continue }
            var received = 0
            var finished: Set<Int32> = []
            for i in polls.indices where polls[i].revents != 0 {
                let n = recv(polls[i].fd, buffer, size, 0)
                if n > 0 { received += n; continue }
                if n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                finished.insert(polls[i].fd)
            }
            bytes.add(received)
            // Let bytes gather for a few ms: one poll() over hundreds of sockets per delivery
            // would make this process compete with the child for the CPUs.
            PerfClock.sleep(seconds: 0.004)
            if !finished.isEmpty {
                ended.add(finished.count)
                polls.removeAll { finished.contains($0.fd) }
            }
        }
    }
}
