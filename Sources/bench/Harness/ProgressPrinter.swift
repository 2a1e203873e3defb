import BenchCore
import Foundation
import ResilienceHarness

/// Live progress of a run on the terminal: one line per scenario, and while it runs a
/// progress bar (redrawn in place on a terminal, one line every 10 s otherwise).
final class ProgressPrinter: Sendable {
    private let status: LiveStatusLine

    /// Prints to stderr when `toStandardError` (the `--json` mode keeps stdout for JSON).
    init(toStandardError: Bool) {
        status = LiveStatusLine(toStandardError: toStandardError)
    }

    func handle(_ progress: HarnessProgress) {
        switch progress {
        case let .scenarioStarted(name, index, count):
            status.write("[\(index + 1)/\(count)] \(name)\n")
            status.restart()
        case let .running(name, elapsed, limit, live):
            let seconds = elapsed.seconds
            status.update(
                "  \(Self.bar(seconds / limit.seconds)) \(String(format: "%5.1f", seconds)) s  \(Self.describe(live))",
                seconds: seconds, context: name)
        case .scenarioFinished(let result):
            status.clear()
            status.write("  \(SummaryTable.outcome(result))\n")
        }
    }

    /// `[#####.....]` for `fraction` of the time limit.
    static func bar(_ fraction: Double) -> String {
        LiveStatusLine.bar(fraction)
    }

    /// "2 downloading, 1 downloaded (48 %)".
    static func describe(_ live: LiveState) -> String {
        guard !live.states.isEmpty else { return "starting" }
        var counts: [String: Int] = [:]
        for state in live.states.values { counts["\(state)", default: 0] += 1 }
        let states = counts.keys.sorted().map { "\(counts[$0]!) \($0)" }.joined(separator: ", ")
        let total = live.states.keys.map(live.progress).reduce(0, +) / Double(live.states.count)
        return states + " (\(Int(total * 100)) %)"
    }
}
