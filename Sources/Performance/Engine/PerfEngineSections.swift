import FixtureOrigin
import Foundation

/// Turns `PerfEngineRun`s into the sections `bench perf engine` prints, each figure
/// against the target. A run that did not complete byte-exact misses every
/// target of its section, with the reason in a note.
enum PerfEngineSections {
    static let goodputTarget = 0.90
    static let overheadTarget = 1.01
    static let peakRSSTarget = 64_000_000

    static func goodput(_ run: PerfEngineRun) -> [PerfFigure] {
        let share = run.goodput / run.linkBitsPerSecond
        return [
            completion(run),
            PerfFigure("goodput (content / launch-to-exit)", share * 100, unit: "%",
                       display: String(format: "%.1f%% (%.1f Mbit/s)", share * 100, run.goodput / 1e6),
                       target: PerfTarget(.atLeast(goodputTarget * 100), text: "≥ \(Int(goodputTarget * 100))% of link"),
                       precondition: run.isComplete),
            PerfFigure("content bytes", Double(run.content.bytes), unit: "B", display: megabytes(run.content.bytes)),
            PerfFigure("wall time, launch to exit", run.child.wallSeconds, unit: "s"),
            PerfFigure("link downstream bytes", Double(run.downlinkBytes), unit: "B",
                       display: megabytes(run.downlinkBytes) + String(format: " (%.4f ×)", ratio(run))),
        ] + engineFigures(run)
    }

    static func resets(_ run: PerfEngineRun) -> [PerfFigure] {
        let value = ratio(run)
        // Faults count bytes of both directions; the exponential law makes the expected
        // number of resets λ per MiB forwarded, λ = -ln(1 - p).
        let lambda = -log1p(-run.scenario.resetProbabilityPerMiB)
        let expected = Double(run.downlinkBytes + run.uplinkBytes) / 1_048_576 * lambda
        let restarts = run.child.lines.filter { $0.text.contains("-> suspended") }.count
        return [
            completion(run),
            PerfFigure("bytes fetched / content bytes", value, unit: "×",
                       display: String(format: "%.4f", value),
                       target: .atMost(overheadTarget), precondition: run.isComplete && value > 0),
            PerfFigure("link downstream bytes", Double(run.downlinkBytes), unit: "B", display: megabytes(run.downlinkBytes)),
            PerfFigure("content bytes", Double(run.content.bytes), unit: "B", display: megabytes(run.content.bytes)),
            PerfFigure("random resets", Double(run.randomResets), unit: "",
                       display: "\(run.randomResets) (expected ≈ \(PerfFormat.number(expected)))"),
            PerfFigure("transfer restarts (suspended)", Double(restarts), unit: "", display: "\(restarts)"),
            PerfFigure("wall time, launch to exit", run.child.wallSeconds, unit: "s"),
            PerfFigure("goodput", run.goodput / run.linkBitsPerSecond * 100, unit: "%",
                       display: String(format: "%.1f%% of link", run.goodput / run.linkBitsPerSecond * 100)),
        ] + engineFigures(run)
    }

    static func memory(_ run: PerfEngineRun) -> [PerfFigure] {
        let peak = run.child.peakRSSBytes
        return [
            completion(run),
            PerfFigure("engine peak RSS", Double(peak), unit: "B", display: rss(peak),
                       target: PerfTarget(.atMost(Double(peakRSSTarget)), text: "≤ \(peakRSSTarget / 1_000_000) MB"),
                       precondition: run.isComplete && peak > 0),
            PerfFigure("content bytes", Double(run.content.bytes), unit: "B", display: megabytes(run.content.bytes)),
            PerfFigure("wall time, launch to exit", run.child.wallSeconds, unit: "s"),
            PerfFigure("goodput", run.goodput / run.linkBitsPerSecond * 100, unit: "%",
                       display: String(format: "%.1f%% of link", run.goodput / run.linkBitsPerSecond * 100)),
            PerfFigure("engine CPU", cpu(run), unit: "cores", display: String(format: "%.0f%% of a CPU", cpu(run) * 100)),
        ]
    }

    /// Notes shared by every section: the timeline, connections, how RSS was read, and the failure.
    static func notes(_ run: PerfEngineRun) -> [String] {
        var notes: [String] = []
        let requested = run.firstLine { $0.hasPrefix("requested ") }
        let downloading = run.firstLine { $0.hasSuffix("-> downloading") }
        let done = run.lastLine { $0.hasSuffix("-> downloaded") }
        func at(_ seconds: Double?) -> String { seconds.map { String(format: "%.2f s", $0) } ?? "never" }
        notes.append("timeline after launch: first download requested \(at(requested)), downloading \(at(downloading)), "
                     + "last one downloaded \(at(done)), exit \(at(run.child.wallSeconds)) (output lines seen every "
                     + "\(Int(PerfEngineChild.sampleInterval * 1000)) ms)")
        if let start = downloading, let end = done, end > start {
            let rate = Double(run.content.bytes) * 8 / (end - start)
            notes.append(String(format: "goodput from the first `downloading` to the last `downloaded`: %.1f Mbit/s (%.1f%% of the link)",
                                rate / 1e6, rate / run.linkBitsPerSecond * 100))
        }
        notes.append(requestSummary(run))
        if run.connectionList.contains(where: { $0.wasReset }) || run.waste.discarded.connections > 0 {
            notes.append(run.waste.summary)
        }
        notes.append("\(run.content.files) media files; \(run.connections) connections through the conditioner, "
                     + "\(run.resets) reset; uplink \(run.uplinkBytes) bytes; peak RSS from \(run.child.peakRSSSource) "
                     + "(VmHWM sampled \(rss(run.child.sampledPeakRSSBytes)), ru_maxrss \(rss(run.child.maxRSSBytes)), "
                     + "this process's VmHWM at spawn \(rss(run.child.parentPeakAtSpawn)))")
        if let failure = run.failure { notes.append("FAILED: \(failure)") }
        return notes
    }

    /// What the origin's request log says about segment requests: resumes, refetches, cut-short responses.
    static func requestSummary(_ run: PerfEngineRun) -> String {
        let segments = run.requests.filter { $0.path.hasSuffix(".ts") }.sorted { $0.startedAtNanoseconds < $1.startedAtNanoseconds }
        var seen = Set<String>()
        var refetched = 0
        for request in segments {
            if request.range == nil, seen.contains(request.path) { refetched += 1 }
            seen.insert(request.path)
        }
        let ranged = segments.filter { $0.range != nil }.count
        let cut = segments.filter { !$0.completed }.count
        let other = run.requests.count - segments.count
        let body = run.requests.map(\.bytesSent).reduce(0, +)
        return "origin: \(segments.count) segment requests for \(seen.count) segments (\(ranged) resumed with Range, "
            + "\(refetched) fetched again from byte 0, \(cut) cut short), \(other) other requests; "
            + "\(body) body bytes written to the conditioner" + cadence(segments, run: run)
    }

    /// The median time between two segment requests on one connection, against the time the
    /// first one's bytes take on the link shared by the engine's 2 fetches: the excess is what
    /// each segment costs between its last byte and the next request (commit, hashing, index,
    /// request). One download on a clean link only.
    private static func cadence(_ segments: [OriginRequestRecord], run: PerfEngineRun) -> String {
        var intervals: [Double] = [], sizes: [Double] = []
        for (_, list) in Dictionary(grouping: segments, by: \.connectionID) {
            for (a, b) in zip(list, list.dropFirst()) where a.completed {
                intervals.append(Double(b.startedAtNanoseconds - a.startedAtNanoseconds) / 1e6)
                sizes.append(Double(a.bytesSent))
            }
        }
        // Only meaningful for one download on a clean link: downloads share pooled connections,
        // and a resume is shorter than a segment.
        guard !intervals.isEmpty, run.scenario.videos.count == 1, run.scenario.resetProbabilityPerMiB == 0 else { return "" }
        let fetches = 2
        let interval = PerfStats.percentile(intervals, 50), size = PerfStats.percentile(sizes, 50)
        let ideal = size * 8 * Double(fetches) / run.linkBitsPerSecond * 1000
        return String(format: "; median time between segment requests on a connection %.0f ms (p90 %.0f ms), "
                      + "for %.0f-byte segments that take %.0f ms on the link shared by %d fetches", interval,
                      PerfStats.percentile(intervals, 90), size, ideal, fetches)
    }

    private static func completion(_ run: PerfEngineRun) -> PerfFigure {
        PerfFigure("download complete, byte-exact", run.isComplete ? 1 : 0, unit: "",
                   display: run.isComplete ? "yes" : "NO", target: PerfTarget(.equal(1), text: "yes"))
    }

    private static func engineFigures(_ run: PerfEngineRun) -> [PerfFigure] {
        [
            PerfFigure("engine CPU", cpu(run), unit: "cores", display: String(format: "%.0f%% of a CPU", cpu(run) * 100)),
            PerfFigure("engine peak RSS", Double(run.child.peakRSSBytes), unit: "B", display: rss(run.child.peakRSSBytes)),
        ]
    }

    /// Bytes sent down the link per content byte; 0 when nothing was stored (a missed
    /// figure then, and JSON cannot hold infinity).
    static func ratio(_ run: PerfEngineRun) -> Double {
        PerfStats.ratio(Double(run.downlinkBytes), Double(run.content.bytes))
    }

    private static func cpu(_ run: PerfEngineRun) -> Double {
        (run.child.userSeconds + run.child.systemSeconds) / max(run.child.wallSeconds, 1e-9)
    }

    static func megabytes(_ bytes: some BinaryInteger) -> String {
        String(format: "%.2f MB", Double(bytes) / 1e6)
    }

    static func rss(_ bytes: Int) -> String {
        String(format: "%.1f MB (%.1f MiB)", Double(bytes) / 1e6, Double(bytes) / 1_048_576)
    }
}
