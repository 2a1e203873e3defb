import BenchCore
import Foundation
import Synchronization

/// Live progress of a run on the terminal (`bench`, `bench gate`, `bench matrix`): a line
/// when each scenario starts and one when it ends, and while scenarios play a status line
/// (redrawn in place on a terminal, one line every 10 s otherwise). With one scenario at
/// a time it shows that scenario's progress bar; with several, each one's time and state.
public final class ProgressPrinter: Sendable {
    private let status: LiveStatusLine
    private let started = ContinuousClock.now
    private let playing = Mutex<[String: Playing]>([:])

    private struct Playing {
        var order: Int
        var elapsed: Duration = .zero
        var limit: Duration = .seconds(1)
        var summary = "starting"
    }

    /// Prints to stderr when `toStandardError` (the `--json` mode keeps stdout for JSON).
    public init(toStandardError: Bool) {
        status = LiveStatusLine(toStandardError: toStandardError)
    }

    public func handle(_ progress: HarnessProgress) {
        switch progress {
        case let .scenarioStarted(name, index, count):
            let others = playing.withLock { now in
                now[name] = Playing(order: index)
                return now.count - 1
            }
            status.clear()
            status.write("[\(index + 1)/\(count)] \(name)\(others > 0 ? " (started; \(others + 1) playing)" : "")\n")
            if others == 0 { status.restart() }
        case let .running(name, elapsed, limit, live):
            let line = playing.withLock { now -> String in
                now[name]?.elapsed = elapsed
                now[name]?.limit = limit
                now[name]?.summary = live.summary
                return Self.line(now)
            }
            status.update(line, seconds: (ContinuousClock.now - started).seconds, context: name)
        case .scenarioFinished(let result):
            let others = playing.withLock { now in
                now[result.name] = nil
                return now.count
            }
            status.clear()
            status.write(others == 0 && result.load?.alongside ?? 0 == 0
                ? "  \(result.outcomeLine)\n" : "  \(result.name): \(result.outcomeLine)\n")
        }
    }

    /// The status line: one scenario's bar, or every playing scenario's time and state.
    private static func line(_ playing: [String: Playing]) -> String {
        if playing.count == 1, let one = playing.first?.value {
            let seconds = one.elapsed.seconds
            return "  \(LiveStatusLine.bar(seconds / one.limit.seconds)) \(String(format: "%5.1f", seconds)) s  \(one.summary)"
        }
        return "  " + playing.sorted { $0.value.order < $1.value.order }.map { name, one in
            "\(name) \(String(format: "%.0f", one.elapsed.seconds)) s: \(one.summary)"
        }.joined(separator: " | ")
    }
}
