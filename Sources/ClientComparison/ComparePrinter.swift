import BenchCore
import Foundation

/// Live progress of a comparison on the terminal (`bench compare`): one line per run, and while it runs a progress bar of
/// the bytes received (redrawn in place on a terminal, one line every 10 s otherwise).
public final class ComparePrinter: Sendable {
    private let status: LiveStatusLine

    /// Prints to stderr when `toStandardError` (`--json` keeps stdout for JSON).
    public init(toStandardError: Bool) {
        status = LiveStatusLine(toStandardError: toStandardError)
    }

    public func header(_ options: ComparisonOptions) {
        let media = options.isRealMedia ? "real media" : "synthetic media"
        status.write("Deadzone \(DeadzoneVersion.current): \(options.clients.count) client\(options.clients.count == 1 ? "" : "s") × "
            + "\(options.modes.count) fault mode\(options.modes.count == 1 ? "" : "s") under \(options.profile.name) (seed \(options.seed), \(media))\n")
        for client in options.clients {
            if let reason = options.notRunReason(client) { status.write("  \(client.name): will not run: \(reason)\n") }
        }
    }

    public func handle(_ progress: ComparisonProgress) {
        switch progress {
        case let .preparing(index, count):
            if index == 0 { status.write("preparing the content (\(count) segments)\n") }
        case .note(let text):
            status.write("note: \(text)\n")
        case let .runStarted(client, mode, index, count):
            status.write("[\(index + 1)/\(count)] \(client) × \(mode.rawValue)\n")
            status.restart()
        case let .running(client, mode, elapsed, limit, received, content, attempt):
            let fraction = content > 0 ? Double(received) / Double(content) : 0
            let line = "  \(LiveStatusLine.bar(fraction)) \(String(format: "%5.1f", elapsed.seconds)) s of \(Int(limit.seconds)) s  "
                + String(format: "%.1f MB received", Double(received) / 1e6) + (attempt > 1 ? " (rerun)" : "")
            status.update(line, seconds: elapsed.seconds, context: "\(client) × \(mode.rawValue)")
        case .runFinished(let run):
            status.clear()
            status.write("  \(ComparisonTable.cell(run, wide: true))"
                + (run.output.map { ": \($0.detail)" } ?? run.error.map { ": \($0)" } ?? "") + "\n")
        }
    }
}
