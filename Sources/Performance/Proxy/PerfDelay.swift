import BenchCore
import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// Section 4: delay error of the shaped link (timestamped messages, through the proxy and direct).
enum PerfDelay {
    static let configuredDelay: UInt64 = 50_000_000
    static let messageInterval: UInt64 = 10_000_000
    static let delayWarmupMessages = 20

    static func run(seconds: Double) -> PerfSection {
        let count = max(50, Int(seconds * 1e9 / Double(messageInterval)))
        var section = PerfSection(
            id: "delay",
            title: "Delay error, 50 ms one-way downlink delay",
            method: """
                In-process conditioner, wifi downlink delay 50 ms, rate unlimited. A server thread writes a \
                16-byte message (sequence, CLOCK_MONOTONIC send time) every 10 ms with an absolute-time sleep \
                (\(count) messages after \(delayWarmupMessages) warm-up ones); the client thread of the same \
                process takes CLOCK_MONOTONIC when each message has been read. Error = arrival − send − 50 ms. \
                The same run direct (no proxy, no delay) gives the floor of the method; the sender's \
                clock_nanosleep lateness during the proxy run shows how late this VM wakes a thread from a timer \
                (the conditioner releases delayed bytes from a libuv timer, so it pays that too).
                """
        )
        do {
            let direct = try delayErrors(viaProxy: false, count: count).errors
            let (errors, lateness) = try delayErrors(viaProxy: true, count: count)
            (section.figures, section.notes) = delayFigures(errors: errors, direct: direct, lateness: lateness)
        } catch {
            section.error = "\(error)"
        }
        return section
    }

    /// The delay section's figures (p99 error ≤ 2 ms) and notes, from the errors through the
    /// proxy, the direct floor and the sender's lateness (ms, one per message).
    static func delayFigures(errors: [Double], direct: [Double], lateness: [Double]) -> ([PerfFigure], [String]) {
        var notes: [String] = []
        let p50 = PerfStats.percentile(errors, 50), p99 = PerfStats.percentile(errors, 99)
        let minimum = errors.min() ?? 0, maximum = errors.max() ?? 0
        let figures = [
            PerfFigure("error p50", p50, unit: "ms", display: String(format: "%.3f ms", p50)),
            PerfFigure("error p99", p99, unit: "ms", display: String(format: "%.3f ms", p99),
                       target: .atMost(2, "ms")),
            PerfFigure("error min / max", maximum, unit: "ms",
                       display: String(format: "%.3f / %.3f ms", minimum, maximum)),
            PerfFigure("direct floor p50 / p99", PerfStats.percentile(direct, 99), unit: "ms",
                       display: String(format: "%.3f / %.3f ms", PerfStats.percentile(direct, 50),
                                       PerfStats.percentile(direct, 99))),
            PerfFigure("sender's 10 ms sleep lateness p50 / p99", PerfStats.percentile(lateness, 99), unit: "ms",
                       display: String(format: "%.3f / %.3f ms", PerfStats.percentile(lateness, 50),
                                       PerfStats.percentile(lateness, 99))),
        ]
        let edges: [Double] = [0.25, 0.5, 1, 2, 5]
        let counts = PerfStats.histogram(errors, edges: edges)
        let labels = ["<0.25", "0.25-0.5", "0.5-1", "1-2", "2-5", "≥5"]
        notes.append("error histogram (ms): " + zip(labels, counts).map { "\($0) \($1)" }.joined(separator: ", "))
        if minimum < 0 {
            notes.append("some messages arrived before the configured delay had elapsed (min error < 0)")
        }
        return (figures, notes)
    }

    /// Milliseconds of (arrival − send − configured delay) per message, and of the sender's
    /// lateness waking from each absolute sleep.
    static func delayErrors(viaProxy: Bool, count: Int) throws -> (errors: [Double], lateness: [Double]) {
        let (listener, port) = try PerfSocket.listen()
        defer { close(listener) }
        let total = count + delayWarmupMessages
        let stopping = PerfFlag()
        let sender = try PerfThread<[Double]>.start(name: "perf-tsender") {
            timestampSender(listener, messages: total, stopping: stopping)
        }
        var conditioner: LinkConditioner?
        var joined = false
        defer {
            stopping.set()
            conditioner?.stop()
            if !joined { _ = sender.join() }
        }
        var host = "127.0.0.1"
        var targetPort = port
        if viaProxy {
            let started = try PerfProxyHarness.start(
                upstreamPort: port, downlink: LinkDirectionParameters(delay: .nanoseconds(Int64(configuredDelay))))
            conditioner = started
            host = PerfProxyHarness.wifiHost
            targetPort = try PerfProxyHarness.wifiPort(started)
        }
        let fd = try PerfSocket.connect(host: host, port: targetPort)
        var fdClosed = false
        defer { if !fdClosed { close(fd) } }
        PerfSocket.setTimeouts(fd, seconds: 2)
        let expected = viaProxy ? configuredDelay : 0
        var message = (UInt64(0), UInt64(0))
        var errors: [Double] = []
        errors.reserveCapacity(count)
        for index in 0..<total {
            let ok = withUnsafeMutableBytes(of: &message) { PerfSocket.readExactly(fd, $0.baseAddress!, 16) }
            let arrival = PerfClock.now()
            guard ok else { throw PerfError("message \(index) of \(total) did not arrive (\(String(cString: strerror(errno))))") }
            guard message.0 == UInt64(index) else { throw PerfError("message \(message.0) arrived as number \(index)") }
            if index >= delayWarmupMessages {
                errors.append((Double(arrival) - Double(message.1) - Double(expected)) / 1e6)
            }
        }
        close(fd)
        fdClosed = true
        joined = true
        let lateness = sender.join()
        return (errors, Array(lateness.dropFirst(delayWarmupMessages)))
    }

    /// Accepts one connection and writes `messages` timestamped 16-byte messages, one every 10 ms.
    /// Returns how late (ms) it woke from each sleep; a failure shows up at the client.
    private static func timestampSender(_ listener: Int32, messages: Int, stopping: PerfFlag) -> [Double] {
        guard let fd = try? PerfSocket.accept(listener, timeout: 10) else { return [] }
        defer { close(fd) }
        PerfSocket.setTimeouts(fd, seconds: 2)
        var lateness: [Double] = []
        lateness.reserveCapacity(messages)
        let start = PerfClock.now() + messageInterval
        for index in 0..<messages {
            if stopping.isSet { return lateness }
            let due = start + UInt64(index) * messageInterval
            PerfClock.sleep(until: due)
            var message = (UInt64(index), PerfClock.now())
            lateness.append(Double(message.1 &- due) / 1e6)
            let ok = withUnsafeBytes(of: &message) { PerfSocket.writeAll(fd, $0.baseAddress!, 16) }
            if !ok { return lateness }
        }
        // Keep the connection open until the client has read everything (it closes first).
        var byte: UInt8 = 0
        _ = recv(fd, &byte, 1, 0)
        return lateness
    }
}
