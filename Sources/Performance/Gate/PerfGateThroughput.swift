import Foundation

/// The gate's first section: unshaped single-stream throughput along three paths — direct
/// loopback, the bare forwarder, the link conditioner — measured in interleaved rounds
/// (`PerfThroughput.measure`), so that a burst of other work on the machine disturbs one
/// round of every path rather than all of one path's; the gate divides each path's best.
enum PerfGateThroughput {
    /// One round's Gbit/s along each path.
    typealias Round = [PerfThroughput.Path: Double]

    /// Measures `rounds` rounds of `seconds` per stream and returns the section (with the
    /// ratios judged against `floors` when there are some) and the two gated ratios. A path
    /// that fails in a round is the section's error and leaves that round out.
    static func run(rounds: Int, seconds: Double, floors: [PerfGateRatio: Double]?) -> (PerfSection, [PerfGateRatio: Double]) {
        var section = PerfSection(
            id: "throughput",
            title: "Unshaped throughput: conditioner, bare forwarder, direct loopback",
            method: """
                One TCP stream client → 127.0.0.1 server, blocking sockets on dedicated threads, \
                \(PerfThroughput.writeSize / 1024) KiB writes, \(PerfFormat.number(seconds)) s per stream, timed \
                first to last byte at the receiver (as `bench perf proxy` section 1). Three paths: direct; a bare \
                forwarder (127.0.0.2, one thread per direction copying 64 KiB reads, TCP_NODELAY, nothing else); \
                the in-process conditioner (wifi listener on 127.0.0.2, transparent profile). \(rounds) rounds of \
                direct, forwarder, conditioner; each path's best round, then the ratios of the bests (interference \
                only slows a stream down).
                """
        )
        var results: [Round] = []
        for index in 1...rounds {
            var round: Round = [:]
            for path in PerfThroughput.Path.allCases {
                do { round[path] = try PerfThroughput.measure(path, seconds: seconds).gigabitsPerSecond } catch {
                    section.addError("round \(index), \(path.rawValue): \(error)")
                }
            }
            results.append(round)
        }
        let (figures, ratios) = figures(results, floors: floors)
        section.figures = figures
        return (section, ratios)
    }

    /// Each path's best Gbit/s over the rounds (with every round's), and the ratios of the
    /// bests: conditioner / forwarder and conditioner / direct against their floors, forwarder /
    /// direct for information. The best, not the median: other work on a shared machine only
    /// ever slows a stream down, so each path's fastest round is its least disturbed one, while
    /// a regression slows every round. A path with no round measured gives no ratio. Pure.
    static func figures(_ rounds: [Round], floors: [PerfGateRatio: Double]?) -> ([PerfFigure], [PerfGateRatio: Double]) {
        var figures: [PerfFigure] = []
        var best: [PerfThroughput.Path: Double] = [:]
        for path in PerfThroughput.Path.allCases {
            let values = rounds.compactMap { $0[path] }
            guard let top = values.max() else { continue }
            best[path] = top
            figures.append(PerfFigure("\(path.rawValue), best", top, unit: "Gbit/s",
                                      display: String(format: "%.2f Gbit/s (rounds %@)", top, list(values, "%.2f"))))
        }
        var measured: [PerfGateRatio: Double] = [:]
        let ratios: [(PerfGateRatio?, String, PerfThroughput.Path, PerfThroughput.Path)] = [
            (.proxyOverForwarder, "conditioner / forwarder", .conditioner, .bareForwarder),
            (.proxyOverDirect, "conditioner / direct", .conditioner, .direct),
            (nil, "forwarder / direct", .bareForwarder, .direct),
        ]
        for (key, label, top, bottom) in ratios {
            guard let a = best[top], let b = best[bottom] else { continue }
            let value = PerfStats.ratio(a, b)
            if let key { measured[key] = value }
            figures.append(PerfFigure(label + (key.map { " (\($0.rawValue))" } ?? " (not gated)"), value, unit: "",
                                      display: String(format: "%.3f", value), target: key.flatMap { floors?[$0] }.map { .atLeast($0) }))
        }
        return (figures, measured)
    }

    private static func list(_ values: [Double], _ format: String) -> String {
        values.map { String(format: format, $0) }.joined(separator: ", ")
    }
}
