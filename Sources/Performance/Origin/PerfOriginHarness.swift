import FixtureOrigin
import Foundation

/// One load of `bench perf origin`: the paths wrk requests (round robin) and the figure
/// the origin must reach on them.
struct PerfOriginLoad: Sendable {
    enum Target: Sendable {
        /// Body bytes of 2xx responses, in Gbit/s.
        case gigabitsPerSecond(Double)
        /// 2xx responses per second.
        case requestsPerSecond(Double)
        /// Informational: no target.
        case none
    }

    var id: String
    var title: String
    var paths: [String]
    var target: Target
}

/// Runs each load against an in-process `OriginServer` with wrk and turns wrk's counts
/// into a `PerfSection`. Called from the command's task; wrk is awaited, never blocked on.
enum PerfOriginHarness {
    /// The segment section serves variant 1200k (1.2 Mbit/s, 6 s segments) scaled to this many bytes.
    static let segmentBytes = 1_000_000
    static let sizeScale = Double(segmentBytes) / (1_200_000.0 / 8 * 6)
    /// Segments rotated over: 16 MB, well inside the default segment cache (256 entries, 64 MiB).
    static let segmentCount = 16

    static let loads: [PerfOriginLoad] = [
        PerfOriginLoad(id: "segments", title: "1 MB segments",
                       paths: (0..<segmentCount).map { "/videos/clear/1200k/seg\($0).ts" }, target: .gigabitsPerSecond(2)),
        PerfOriginLoad(id: "media", title: "Media playlist", paths: ["/videos/clear/1200k/index.m3u8"],
                       target: .requestsPerSecond(10_000)),
        PerfOriginLoad(id: "master", title: "Master playlist", paths: ["/videos/clear/master.m3u8"],
                       target: .requestsPerSecond(10_000)),
        PerfOriginLoad(id: "catalog", title: "Catalog JSON", paths: ["/videos"], target: .none),
    ]

    /// The origin under test: 127.0.0.1, an ephemeral port, `threads` event-loop threads.
    static func start(threads: Int) async throws -> OriginServer {
        var configuration = OriginConfiguration()
        configuration.catalog = CatalogConfiguration(seed: 1, sizeScale: sizeScale)
        configuration.threads = threads
        return try await OriginServer.start(configuration: configuration)
    }

    /// A checking warm-up of `warmupSeconds` (fills the segment cache, verifies every
    /// response), then the measured run; any error becomes a missed figure.
    static func measure(_ load: PerfOriginLoad, server: OriginServer, wrk: String, wrkLoad: PerfWrkLoad,
                        warmupSeconds: Int) async -> PerfSection {
        let shown = load.paths.count > 1
            ? "\(load.paths.count) paths \(load.paths[0]) … \(load.paths[load.paths.count - 1]) (round robin)"
            : load.paths.joined()
        var section = PerfSection(
            id: load.id, title: load.title,
            method: """
                wrk \(wrkLoad.arguments.joined(separator: " ")) on \(shown), after a \(warmupSeconds) s \
                warm-up that checks every response (2xx, body length). Rates count 2xx responses over wrk's run \
                time; the origin (\(server.configuration.threads) event-loop threads) runs in this process, wrk \
                in a child process, on the same \(PerfAffinity.onlineCPUs) CPUs.
                """)
        do {
            let lengths = load.paths.map { server.store.resource(at: $0)?.bytes.count }
            guard let length = lengths.first ?? nil, lengths.allSatisfy({ $0 == length }) else {
                throw PerfError("the origin does not serve \(load.paths) with one body length: \(lengths)")
            }
            var warmLoad = wrkLoad
            warmLoad.seconds = warmupSeconds
            let warm = try await PerfWrk.run(executable: wrk, port: server.port, paths: load.paths,
                                             expectedLength: length, check: true, load: warmLoad)
            let cpuBefore = PerfRusage.cpuSeconds(), machineBefore = PerfRusage.machineBusySeconds()
            let run = try await PerfWrk.run(executable: wrk, port: server.port, paths: load.paths,
                                            expectedLength: length, check: false, load: wrkLoad)
            let originCPU = PerfRusage.cpuSeconds() - cpuBefore
            let otherCPU = max(0, PerfRusage.machineBusySeconds() - machineBefore - originCPU - run.cpuSeconds)
            section.figures = figures(load, warm: warm, run: run, length: length, originCPU: originCPU,
                                      connections: wrkLoad.connections, notes: &section.notes)
            let other = otherCPU / max(run.seconds, 1e-9)
            section.figures.insert(PerfFigure("other processes' CPU", other, unit: "cores",
                                              display: String(format: "%.0f%% of a CPU", other * 100)),
                                   at: section.figures.count - 1)
            if other > 0.15 { section.notes.append("WARNING: other work ran during the measurement; figures are low and noisy") }
        } catch {
            section.error = "\(error)"
        }
        return section
    }

    static func figures(_ load: PerfOriginLoad, warm: PerfWrkResult, run: PerfWrkResult, length: Int,
                                originCPU: Double, connections: Int, notes: inout [String]) -> [PerfFigure] {
        let good = max(0, run.requests - run.statusErrors)
        let seconds = max(run.seconds, 1e-9)
        let rate = Double(good) / seconds
        let gbps = Double(good) * Double(length) * 8 / seconds / 1e9
        // wrk counts bytes as they arrive: at least the 2xx bodies, at most every response
        // plus one partial per connection, each with under 1 KiB of status line and headers.
        let bytesPlausible = run.bytes >= good * length && run.bytes <= (run.requests + connections) * (length + 1024)
        let errors = warm.non2xx + warm.badLength + warm.socketErrors + run.statusErrors + run.socketErrors
            + (bytesPlausible ? 0 : 1)
        var figures: [PerfFigure] = []
        switch load.target {
        case .gigabitsPerSecond(let target):
            figures.append(PerfFigure("body throughput", gbps, unit: "Gbit/s", target: .atLeast(target, "Gbit/s")))
            figures.append(PerfFigure("requests/s", rate, unit: "req/s"))
        case .requestsPerSecond(let target):
            figures.append(PerfFigure("requests/s", rate, unit: "req/s", target: .atLeast(target, "req/s")))
        case .none:
            figures.append(PerfFigure("requests/s", rate, unit: "req/s"))
        }
        let p50 = run.latencyP50Microseconds / 1000, p99 = run.latencyP99Microseconds / 1000
        figures += [
            PerfFigure("latency p50 / p99", p50, unit: "ms",
                       display: "\(PerfFormat.number(p50)) / \(PerfFormat.number(p99)) ms"),
            PerfFigure("origin CPU", originCPU / seconds, unit: "cores",
                       display: String(format: "%.0f%% of a CPU", originCPU / seconds * 100)),
            PerfFigure("origin CPU per response", good > 0 ? originCPU / Double(good) * 1e6 : 0, unit: "µs"),
            PerfFigure("wrk CPU", run.cpuSeconds / seconds, unit: "cores",
                       display: String(format: "%.0f%% of a CPU", run.cpuSeconds / seconds * 100)),
            PerfFigure("errors (non-2xx, socket, length)", Double(errors), unit: "", display: "\(errors)",
                       target: PerfTarget(.equal(0), text: "0")),
        ]
        notes.append("body \(length) bytes; wrk: \(run.requests) responses, \(run.bytes) bytes read in "
                     + String(format: "%.2f s; warm-up %d responses", run.seconds, warm.requests))
        if good > 0, originCPU > 0 {
            let perCPU = Double(good) / originCPU
            notes.append("at this CPU cost one CPU serves at most \(Int(perCPU)) responses/s"
                         + (length < 65536 ? "" : String(format: " (%.1f Gbit/s of these bodies)", perCPU * Double(length) * 8 / 1e9)))
        }
        if errors > 0 {
            notes.append("errors: warm-up non-2xx \(warm.non2xx), wrong length \(warm.badLength), socket \(warm.socketErrors); "
                         + "run status > 399 \(run.statusErrors), connect \(run.connectErrors), read \(run.readErrors), "
                         + "write \(run.writeErrors), timeout \(run.timeouts)"
                         + (bytesPlausible ? "" : "; bytes read do not match \(good) responses of \(length) bytes"))
        }
        return figures
    }
}
