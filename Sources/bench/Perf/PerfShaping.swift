import BenchCore
import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// Sections 3–5: rate accuracy, delay error and fairness of the shaped link.
enum PerfShaping {
    // MARK: - 3. Rate accuracy

    static func runRateAccuracy(rates: [Double], warmup: Double, seconds: Double) -> PerfSection {
        var section = PerfSection(
            id: "rate",
            title: "Rate accuracy (achieved / target, downlink)",
            method: """
                For each rate, an in-process conditioner with that constant wifi downlink rate (no delay, default \
                1 MiB queue); a local server writes 64 KiB chunks as fast as it can through it; the client reads \
                and, after a \(PerfFormat.number(warmup)) s warm-up, counts payload bytes for \
                \(PerfFormat.number(seconds)) s (bytes after the first read in the window / time from that read \
                to the last).
                """
        )
        for rate in rates {
            let label = "\(PerfFormat.number(rate / 1e6)) Mbit/s"
            do {
                let achieved = try rateAccuracy(bitsPerSecond: rate, warmup: warmup, seconds: seconds)
                let ratio = achieved / rate
                section.figures.append(PerfFigure(
                    label + " achieved/target", ratio, unit: "",
                    display: String(format: "%.4f (%@)", ratio, PerfFormat.number(achieved / 1e6) + " Mbit/s"),
                    target: "1 ± 0.02", pass: abs(ratio - 1) <= 0.02))
            } catch {
                section.error = (section.error.map { $0 + "; " } ?? "") + "\(label): \(error)"
            }
        }
        return section
    }

    /// Bits per second the client received through a link shaped to `bitsPerSecond`.
    static func rateAccuracy(bitsPerSecond: Double, warmup: Double, seconds: Double) throws -> Double {
        let server = try PerfStreamServer(connections: 1)
        defer { server.stop() }
        let conditioner = try PerfProxyHarness.start(
            upstreamPort: server.port,
            downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: bitsPerSecond)))
        defer { conditioner.stop() }
        let fd = try PerfSocket.connect(host: PerfProxyHarness.wifiHost, port: try PerfProxyHarness.wifiPort(conditioner))
        defer { close(fd) }
        PerfSocket.setTimeouts(fd, seconds: 0.2)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 4096)
        defer { buffer.deallocate() }
        let windowStart = PerfClock.now() + UInt64(warmup * 1e9)
        let windowEnd = windowStart + UInt64(seconds * 1e9)
        var first: UInt64 = 0
        var last: UInt64 = 0
        var bytes = 0
        while true {
            let n = recv(fd, buffer, 64 * 1024, 0)
            let now = PerfClock.now()
            if now >= windowEnd { break }
            if n > 0 {
                guard now >= windowStart else { continue }
                if first == 0 { first = now } else { bytes += n; last = now }
                continue
            }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
            throw n == 0 ? PerfError("the proxy closed the stream") : PerfError.system("recv")
        }
        guard last > first else { throw PerfError("no bytes arrived in the measuring window") }
        return Double(bytes) * 8 / PerfClock.seconds(last - first)
    }

    // MARK: - 4. Delay error

    static let configuredDelay: UInt64 = 50_000_000
    static let messageInterval: UInt64 = 10_000_000
    static let delayWarmupMessages = 20

    static func runDelayError(seconds: Double) -> PerfSection {
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
            let p50 = PerfStats.percentile(errors, 50), p99 = PerfStats.percentile(errors, 99)
            let minimum = errors.min() ?? 0, maximum = errors.max() ?? 0
            section.figures = [
                PerfFigure("error p50", p50, unit: "ms", display: String(format: "%.3f ms", p50)),
                PerfFigure("error p99", p99, unit: "ms", display: String(format: "%.3f ms", p99),
                           target: "≤ 2 ms", pass: p99 <= 2),
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
            var counts = [Int](repeating: 0, count: edges.count + 1)
            for error in errors { counts[edges.firstIndex { error < $0 } ?? edges.count] += 1 }
            let labels = ["<0.25", "0.25-0.5", "0.5-1", "1-2", "2-5", "≥5"]
            section.notes.append("error histogram (ms): " + zip(labels, counts).map { "\($0) \($1)" }.joined(separator: ", "))
            if minimum < 0 {
                section.notes.append("some messages arrived before the configured delay had elapsed (min error < 0)")
            }
        } catch {
            section.error = "\(error)"
        }
        return section
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

    // MARK: - 5. Fairness

    static let fairnessFlows = 4
    static let fairnessRate = 10e6

    static func runFairness(warmup: Double, seconds: Double) -> PerfSection {
        var section = PerfSection(
            id: "fairness",
            title: "Jain fairness, 4 connections sharing 10 Mbit/s",
            method: """
                In-process conditioner, wifi downlink 10 Mbit/s (no delay, default queue); a local server writes \
                as fast as it can on each of 4 connections (one thread each); one client thread polls the 4 \
                sockets and counts each connection's bytes over \(PerfFormat.number(seconds)) s after a \
                \(PerfFormat.number(warmup)) s warm-up. J = (Σx)² / (n·Σx²).
                """
        )
        do {
            let (bytes, window) = try fairness(warmup: warmup, seconds: seconds)
            let values = bytes.map(Double.init)
            let j = PerfStats.jain(values)
            let sum = values.reduce(0, +)
            section.figures.append(PerfFigure("Jain index", j, unit: "", display: String(format: "%.4f", j),
                                              target: "≥ 0.95", pass: j >= 0.95))
            let shares = values.map { sum > 0 ? $0 / sum * 100 : 0 }
            section.figures.append(PerfFigure("shares", shares.min() ?? 0, unit: "%",
                                              display: shares.map { String(format: "%.1f%%", $0) }.joined(separator: " ")))
            let aggregate = sum * 8 / window
            section.figures.append(PerfFigure("aggregate / 10 Mbit/s", aggregate / fairnessRate, unit: "",
                                              display: String(format: "%.4f (%@ Mbit/s)", aggregate / fairnessRate,
                                                              PerfFormat.number(aggregate / 1e6))))
        } catch {
            section.error = "\(error)"
        }
        return section
    }

    /// Bytes each connection received in the window, and the window's length in seconds.
    static func fairness(warmup: Double, seconds: Double) throws -> ([Int], Double) {
        let server = try PerfStreamServer(connections: fairnessFlows)
        defer { server.stop() }
        let conditioner = try PerfProxyHarness.start(
            upstreamPort: server.port, downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: fairnessRate)))
        defer { conditioner.stop() }
        let port = try PerfProxyHarness.wifiPort(conditioner)
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        for _ in 0..<fairnessFlows {
            let fd = try PerfSocket.connect(host: PerfProxyHarness.wifiHost, port: port)
            PerfSocket.setNonBlocking(fd)
            fds.append(fd)
        }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 4096)
        defer { buffer.deallocate() }
        var totals = [Int](repeating: 0, count: fds.count)
        var atStart: [Int]?
        var startTime: UInt64 = 0
        let windowStart = PerfClock.now() + UInt64(warmup * 1e9)
        let windowEnd = windowStart + UInt64(seconds * 1e9)
        var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            let now = PerfClock.now()
            if atStart == nil, now >= windowStart { atStart = totals; startTime = now }
            if now >= windowEnd { break }
            let ready = poll(&polls, nfds_t(polls.count), 10)
            if ready < 0, errno != EINTR { throw PerfError.system("poll") }
            for i in polls.indices where polls[i].revents != 0 {
                let n = recv(polls[i].fd, buffer, 64 * 1024, 0)
                if n > 0 { totals[i] += n; continue }
                if n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                throw PerfError("connection \(i + 1) ended early (\(n == 0 ? "EOF" : String(cString: strerror(errno))))")
            }
        }
        let window = PerfClock.seconds(PerfClock.now() - startTime)
        let start = atStart ?? totals
        return (zip(totals, start).map { $0 - $1 }, window)
    }
}
