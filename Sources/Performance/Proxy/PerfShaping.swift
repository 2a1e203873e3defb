import BenchCore
import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// Sections 3 and 5: rate accuracy and fairness of the shaped link.
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
                section.figures.append(rateFigure(target: rate, achieved: try rateAccuracy(bitsPerSecond: rate, warmup: warmup,
                                                                                            seconds: seconds)))
            } catch {
                section.addError("\(label): \(error)")
            }
        }
        return section
    }

    /// Achieved / target rate, against 1 ± 2%.
    static func rateFigure(target rate: Double, achieved: Double) -> PerfFigure {
        let ratio = PerfStats.ratio(achieved, rate)
        return PerfFigure("\(PerfFormat.number(rate / 1e6)) Mbit/s achieved/target", ratio, unit: "",
                          display: String(format: "%.4f (%@)", ratio, PerfFormat.number(achieved / 1e6) + " Mbit/s"),
                          target: .within(0.02, of: 1))
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
            section.figures = fairnessFigures(bytes: bytes, window: window)
        } catch {
            section.error = "\(error)"
        }
        return section
    }

    /// Jain's index of the connections' bytes (≥ 0.95), their shares, and the aggregate rate
    /// over `window` seconds against the link's.
    static func fairnessFigures(bytes: [Int], window: Double) -> [PerfFigure] {
        let values = bytes.map(Double.init)
        let j = PerfStats.jain(values)
        let sum = values.reduce(0, +)
        let shares = values.map { PerfStats.ratio($0, sum) * 100 }
        let aggregate = sum * 8 / window
        return [
            PerfFigure("Jain index", j, unit: "", display: String(format: "%.4f", j), target: .atLeast(0.95)),
            PerfFigure("shares", shares.min() ?? 0, unit: "%",
                       display: shares.map { String(format: "%.1f%%", $0) }.joined(separator: " ")),
            PerfFigure("aggregate / 10 Mbit/s", aggregate / fairnessRate, unit: "",
                       display: String(format: "%.4f (%@ Mbit/s)", aggregate / fairnessRate, PerfFormat.number(aggregate / 1e6))),
        ]
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
