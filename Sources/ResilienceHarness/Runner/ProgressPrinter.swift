import BenchCore
import Foundation

/// Live progress of a run on the terminal (`bench`, `bench gate`, `bench matrix`): one line per scenario, and while it runs a
/// progress bar (redrawn in place on a terminal, one line every 10 s otherwise).
public final class ProgressPrinter: Sendable {
    private let status: LiveStatusLine

    /// Prints to stderr when `toStandardError` (the `--json` mode keeps stdout for JSON).
    public init(toStandardError: Bool) {
        status = LiveStatusLine(toStandardError: toStandardError)
    }

    public func handle(_ progress: HarnessProgress) {
        switch progress {
        case let .scenarioStarted(name, index, count):
            status.write("[\(index + 1)/\(count)] \(name)\n")
            status.restart()
        case let .running(name, elapsed, limit, live):
            let seconds = elapsed.seconds
            status.update(
                "  \(LiveStatusLine.bar(seconds / limit.seconds)) \(String(format: "%5.1f", seconds)) s  \(live.summary)",
                seconds: seconds, context: name)
        case .scenarioFinished(let result):
            status.clear()
            status.write("  \(result.outcomeLine)\n")
        }
    }
}
