import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// Section 1: unshaped single-stream throughput, direct and through the proxy.
enum PerfThroughput {
    static let writeSize = 256 * 1024

    /// Where the client's stream goes on its way to the server.
    enum Path: String, Sendable, CaseIterable {
        /// client → 127.0.0.1 server.
        case direct
        /// client → `PerfBareForwarder` on 127.0.0.2 → server.
        case bareForwarder = "bare forwarder"
        /// client → in-process conditioner's wifi listener (transparent profile) → server.
        case conditioner
    }

    struct Measurement: Sendable {
        var bytes: Int
        var seconds: Double
        /// Share of the wall time the proxy's loop thread spent on a CPU, and waiting for one (0...1).
        var loopRunning: Double = 0
        var loopWaiting: Double = 0
        var gigabitsPerSecond: Double { PerfStats.ratio(Double(bytes) * 8, seconds) / 1e9 }
    }

    static func run(seconds: Double) -> PerfSection {
        var section = PerfSection(
            id: "throughput",
            title: "Unshaped single-stream throughput",
            method: """
                One TCP stream, client → server, blocking POSIX sockets on dedicated threads, \(writeSize / 1024) KiB \
                writes and reads from reused buffers, \(PerfFormat.number(seconds)) s each; Gbit/s = payload bytes \
                received / time from first to last byte at the receiver. Direct: client → 127.0.0.1 server. \
                Proxy: client → in-process conditioner wifi listener (transparent profile) → 127.0.0.1 server.
                """
        )
        do {
            let direct = try measure(.direct, seconds: seconds)
            let proxied = try measure(.conditioner, seconds: seconds)
            section.figures = figures(direct: direct, proxied: proxied)
            section.notes.append(String(format: "moved %.1f GiB direct, %.1f GiB through the proxy",
                                        Double(direct.bytes) / 1_073_741_824, Double(proxied.bytes) / 1_073_741_824))
            section.notes.append(String(format: "proxy loop thread: on a CPU %.0f%% of the time, runnable but waiting for a CPU %.0f%% "
                                        + "(sender, proxy and receiver are 3 busy threads on %d CPUs)",
                                        proxied.loopRunning * 100, proxied.loopWaiting * 100, PerfAffinity.onlineCPUs))
        } catch {
            section.error = "\(error)"
        }
        return section
    }

    /// Direct and proxied Gbit/s, the proxied one against 9 Gbit/s and against a third of direct.
    static func figures(direct: Measurement, proxied: Measurement) -> [PerfFigure] {
        let ratio = PerfStats.ratio(proxied.gigabitsPerSecond, direct.gigabitsPerSecond)
        return [
            PerfFigure("direct loopback", direct.gigabitsPerSecond, unit: "Gbit/s"),
            PerfFigure("through proxy", proxied.gigabitsPerSecond, unit: "Gbit/s", target: .atLeast(9, "Gbit/s")),
            PerfFigure("ratio proxy/direct", ratio, unit: "", display: String(format: "%.2f", ratio), target: .atLeast(0.33)),
        ]
    }

    /// One stream of `seconds` along `path`, timed at the receiver.
    static func measure(_ path: Path, seconds: Double) throws -> Measurement {
        let (listener, port) = try PerfSocket.listen()
        defer { close(listener) }
        var conditioner: LinkConditioner?
        defer { conditioner?.stop() }
        var forwarder: PerfBareForwarder?
        defer { forwarder?.stop() }
        var host = "127.0.0.1"
        var targetPort = port
        switch path {
        case .direct: break
        case .bareForwarder:
            let started = try PerfBareForwarder(upstreamPort: port)
            forwarder = started
            (host, targetPort) = (PerfBareForwarder.host, started.port)
        case .conditioner:
            let started = try PerfProxyHarness.start(upstreamPort: port)
            conditioner = started
            host = PerfProxyHarness.wifiHost
            targetPort = try PerfProxyHarness.wifiPort(started)
        }
        let receiver = try PerfThread<Result<Measurement, PerfError>>.start(name: "perf-recv") {
            receive(on: listener, hardLimit: seconds + 20)
        }
        let before = PerfThreadTimes.snapshot()
        let start = PerfClock.now()
        var sendError: (any Error)?
        do {
            _ = try perfOnThread(name: "perf-send") { [host, targetPort] in try send(host: host, port: targetPort, seconds: seconds) }
        } catch { sendError = error }
        let received = receiver.join()
        let wall = PerfClock.seconds(PerfClock.now() - start)
        let loop = PerfThreadTimes.snapshot().since(before, prefix: "dz-uv")
        if let sendError { throw sendError }
        var measurement = try received.get()
        measurement.loopRunning = loop.running / wall
        measurement.loopWaiting = loop.waiting / wall
        return measurement
    }

    /// Accepts one connection and reads until EOF; times first to last byte.
    private static func receive(on listener: Int32, hardLimit: Double) -> Result<Measurement, PerfError> {
        let fd: Int32
        do { fd = try PerfSocket.accept(listener, timeout: 5) } catch let error as PerfError {
            return .failure(error)
        } catch { return .failure(PerfError("\(error)")) }
        defer { close(fd) }
        PerfSocket.setTimeouts(fd, seconds: 5)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: writeSize, alignment: 4096)
        defer { buffer.deallocate() }
        let deadline = PerfClock.now() + UInt64(hardLimit * 1e9)
        var bytes = 0
        var first: UInt64 = 0
        var last: UInt64 = 0
        while true {
            let n = recv(fd, buffer, writeSize, 0)
            if n > 0 {
                last = PerfClock.now()
                if first == 0 { first = last } else { bytes += n }
                if last > deadline { return .failure(PerfError("the stream did not end within \(hardLimit) s")) }
                continue
            }
            if n == 0 { break }
            if errno == EINTR { continue }
            return .failure(.system("recv"))
        }
        return .success(Measurement(bytes: bytes, seconds: PerfClock.seconds(last - first)))
    }

    /// Connects and writes for `seconds`, then half-closes and waits for the peer's EOF.
    private static func send(host: String, port: UInt16, seconds: Double) throws(PerfError) -> Int {
        let fd: Int32
        do { fd = try PerfSocket.connect(host: host, port: port) } catch let error as PerfError { throw error } catch {
            throw PerfError("\(error)")
        }
        defer { close(fd) }
        PerfSocket.setTimeouts(fd, seconds: 5)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: writeSize, alignment: 4096)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0x5A, count: writeSize)
        let end = PerfClock.now() + UInt64(seconds * 1e9)
        var sent = 0
        while PerfClock.now() < end {
            guard PerfSocket.writeAll(fd, buffer, writeSize) else { throw PerfError.system("send") }
            sent += writeSize
        }
        shutdown(fd, Int32(SHUT_WR))
        // Wait (bounded by the 5 s receive timeout) for the far side to close too.
        _ = recv(fd, buffer, writeSize, 0)
        return sent
    }
}
