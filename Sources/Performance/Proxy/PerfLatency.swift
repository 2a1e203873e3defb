import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// Section 2: round-trip time of 64-byte ping-pong, direct and through the proxy.
enum PerfLatency {
    static let messageSize = 64
    static let warmup = 300

    struct Pair: Sendable {
        /// Round-trip times in microseconds.
        var direct: [Double]
        var proxy: [Double]
        var cpu: Int
        /// On-CPU µs per round trip through the proxy: (proxy loop thread, echo thread, client thread).
        var proxyCPU: (loop: Double, echo: Double, client: Double)
        /// On-CPU µs per round trip direct: (echo thread, client thread).
        var directCPU: (echo: Double, client: Double)
    }

    static func run(roundTrips: Int) -> PerfSection {
        var section = PerfSection(
            id: "latency",
            title: "Added round-trip latency, 64-byte ping-pong",
            method: """
                One connection, the client writes 64 bytes and waits for the 64-byte echo (blocking sockets, \
                TCP_NODELAY), \(roundTrips) round trips after \(warmup) warm-up ones. Direct: client → echo server; \
                proxy: client → in-process conditioner (transparent) → echo server. Pinned: a measuring thread \
                calls sched_setaffinity(cpu 0) and then creates the echo thread and the conditioner's loop thread, \
                which inherit the mask, so client, proxy and server all share cpu 0. Unpinned: no affinity.
                """
        )
        for pinned in [true, false] {
            let mode = pinned ? "pinned" : "unpinned"
            do {
                let pair = try perfOnThread(name: "perf-measure") { try measure(pinned: pinned, roundTrips: roundTrips) }
                let (figures, notes) = Self.figures(pair, pinned: pinned)
                section.figures += figures
                section.notes += notes
            } catch {
                section.addError("\(mode): \(error)")
            }
        }
        return section
    }

    /// One mode's figures and notes: direct and proxy p50 / p99 and what the proxy adds; the
    /// added p50 of the pinned run is judged (≤ 30 µs).
    static func figures(_ pair: Pair, pinned: Bool) -> ([PerfFigure], [String]) {
        let mode = pinned ? "pinned" : "unpinned"
        let d50 = PerfStats.percentile(pair.direct, 50), d99 = PerfStats.percentile(pair.direct, 99)
        let p50 = PerfStats.percentile(pair.proxy, 50), p99 = PerfStats.percentile(pair.proxy, 99)
        let added50 = p50 - d50, added99 = p99 - d99
        var notes = pinned ? ["pinned run measured on cpu \(pair.cpu)"] : []
        notes.append(String(
            format: "%@ on-CPU time per round trip (schedstat): direct: client %.1f + echo %.1f µs; "
                + "proxy: client %.1f + echo %.1f + proxy loop thread %.1f µs",
            mode, pair.directCPU.client, pair.directCPU.echo, pair.proxyCPU.client, pair.proxyCPU.echo, pair.proxyCPU.loop))
        let figures = [
            PerfFigure("\(mode) direct p50 / p99", d50, unit: "µs", display: String(format: "%.1f / %.1f µs", d50, d99)),
            PerfFigure("\(mode) proxy p50 / p99", p50, unit: "µs", display: String(format: "%.1f / %.1f µs", p50, p99)),
            PerfFigure("\(mode) added p50", added50, unit: "µs", display: String(format: "%.1f µs", added50),
                       target: pinned ? .atMost(30, "µs") : nil),
            PerfFigure("\(mode) added p99", added99, unit: "µs", display: String(format: "%.1f µs", added99)),
        ]
        return (figures, notes)
    }

    /// Runs on a dedicated thread (the pinning applies to it and to the threads it creates).
    static func measure(pinned: Bool, roundTrips: Int) throws -> Pair {
        if pinned { try PerfAffinity.pinCurrentThread(toCPU: 0) }
        let direct = try pingPong(viaProxy: false, roundTrips: roundTrips)
        let proxy = try pingPong(viaProxy: true, roundTrips: roundTrips)
        let n = Double(roundTrips) / 1e6
        return Pair(direct: direct.samples, proxy: proxy.samples, cpu: PerfAffinity.currentCPU(),
                    proxyCPU: (proxy.loop / n, proxy.echo / n, proxy.client / n),
                    directCPU: (direct.echo / n, direct.client / n))
    }

    /// Round-trip samples (µs) and the seconds each thread spent on a CPU during the measured ones.
    private static func pingPong(viaProxy: Bool, roundTrips: Int) throws
        -> (samples: [Double], loop: Double, echo: Double, client: Double) {
        let (listener, port) = try PerfSocket.listen()
        defer { close(listener) }
        let echo = try PerfThread<String?>.start(name: "perf-echo") { echoServer(listener) }
        var conditioner: LinkConditioner?
        defer {
            conditioner?.stop()
            _ = echo.join()
        }
        var host = "127.0.0.1"
        var targetPort = port
        do {
            if viaProxy {
                let started = try PerfProxyHarness.start(upstreamPort: port)
                conditioner = started
                host = PerfProxyHarness.wifiHost
                targetPort = try PerfProxyHarness.wifiPort(started)
            }
        } catch {
            // Unblock the echo thread's accept with a direct connection that closes at once.
            if let fd = try? PerfSocket.connect(host: "127.0.0.1", port: port) { close(fd) }
            throw error
        }
        let fd = try PerfSocket.connect(host: host, port: targetPort)
        defer { close(fd) }
        PerfSocket.setTimeouts(fd, seconds: 5)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: messageSize, alignment: 64)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0x42, count: messageSize)
        var samples: [Double] = []
        samples.reserveCapacity(roundTrips)
        var before = PerfThreadTimes()
        for i in 0..<(warmup + roundTrips) {
            if i == warmup { before = PerfThreadTimes.snapshot() }
            let start = PerfClock.now()
            guard PerfSocket.writeAll(fd, buffer, messageSize) else { throw PerfError.system("ping send") }
            guard PerfSocket.readExactly(fd, buffer, messageSize) else { throw PerfError.system("pong recv") }
            let end = PerfClock.now()
            if i >= warmup { samples.append(Double(end - start) / 1000) }
        }
        let after = PerfThreadTimes.snapshot()
        return (samples, after.since(before, prefix: "dz-uv").running, after.since(before, prefix: "perf-echo").running,
                after.since(before, prefix: "perf-measure").running)
    }

    /// Echoes 64-byte messages on one connection until EOF. Returns an error text or nil.
    private static func echoServer(_ listener: Int32) -> String? {
        let fd: Int32
        do { fd = try PerfSocket.accept(listener, timeout: 10) } catch { return "\(error)" }
        defer { close(fd) }
        PerfSocket.setTimeouts(fd, seconds: 5)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: messageSize, alignment: 64)
        defer { buffer.deallocate() }
        while PerfSocket.readExactly(fd, buffer, messageSize) {
            guard PerfSocket.writeAll(fd, buffer, messageSize) else { break }
        }
        return nil
    }
}
