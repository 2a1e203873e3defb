import Foundation
import Synchronization

/// The status line of a long run (a progress bar and a few words): redrawn in place on
/// a terminal; elsewhere (CI logs, pipes) written as a new line at most every 10 s.
/// Other lines go through `write` so they never interleave with it. The `bench` command's
/// progress printers (run, compare) own one each.
public final class LiveStatusLine: Sendable {
    private let output: DescriptorWriter
    private let isTerminal: Bool
    private let lastLine = Mutex<Double>(-10)

    /// Writes to stderr when `toStandardError` (the `--json` modes keep stdout for JSON).
    public init(toStandardError: Bool) {
        output = DescriptorWriter(descriptor: toStandardError ? 2 : 1)
        isTerminal = isatty(toStandardError ? 2 : 1) == 1
    }

    /// Writes `text` as it is (whole lines).
    public func write(_ text: String) {
        output.write(text)
    }

    /// Shows `line` at `seconds` into the current item; `context` is added when it is
    /// written as a log line (it says which item the line is about).
    public func update(_ line: String, seconds: Double, context: String) {
        if isTerminal {
            output.write("\r\u{1B}[2K" + line)
        } else if lastLine.withLock({ last in
            guard seconds - last >= 10 else { return false }
            last = seconds
            return true
        }) {
            output.write(line + "  (\(context))\n")
        }
    }

    /// A new item begins: its first update is written at once.
    public func restart() {
        lastLine.withLock { $0 = -10 }
    }

    /// Erases the status line on a terminal, before the item's result is written.
    public func clear() {
        if isTerminal { output.write("\r\u{1B}[2K") }
    }

    /// `[#####.....]` for `fraction`.
    public static func bar(_ fraction: Double) -> String {
        let filled = Int((min(1, max(0, fraction)) * 20).rounded())
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled) + "]"
    }
}

/// Writes whole strings to a file descriptor at once (lines from several tasks never
/// interleave). `LiveStatusLine` and the `bench` printers use it; it owns nothing (the
/// descriptor stays open).
public struct DescriptorWriter: Sendable {
    /// 1 (stdout) or 2 (stderr), usually.
    public let descriptor: Int32

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes `text` in one go, surviving signals (`writeSurvivingSignals`).
    public func write(_ text: String) {
        FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).writeSurvivingSignals(Data(text.utf8))
    }
}
