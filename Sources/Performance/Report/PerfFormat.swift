import Foundation

/// How the benchmarks' figures and reports read as text: pure functions from values to
/// lines. `bench perf` decides where the lines go (stdout, or stderr under `--json`).
public enum PerfFormat {
    static let widths = [12, 34, 16, 16, 6]

    /// The lines printed when a section starts: a blank line, "2. Title", a rule.
    public static func heading(_ index: Int, _ title: String) -> [String] {
        ["", "\(index). \(title)", String(repeating: "-", count: title.count + 3)]
    }

    /// The lines printed when a section ends: method, figures, notes, error, time.
    public static func body(_ section: PerfSection) -> [String] {
        var lines = wrap(section.method, width: 96, indent: "   ")
        lines += section.figures.map { "   " + figureLine($0) }
        for note in section.notes {
            for (i, text) in wrap(note, width: 96, indent: "     ").enumerated() {
                lines.append(i == 0 ? "   - " + text.dropFirst(5) : text)
            }
        }
        if let error = section.error { lines.append("   ERROR: \(error)") }
        lines.append(String(format: "   (%.1f s)", section.seconds))
        return lines
    }

    /// The summary table of every figure with a target (and every section with an error),
    /// then the tally line.
    public static func summary(_ sections: [PerfSection]) -> [String] {
        let header = row(["section", "figure", "measured", "target", "result"])
        var lines = ["", "Summary", "-------", header, String(repeating: "-", count: header.count)]
        for section in sections {
            if let error = section.error {
                lines.append(row([section.id, "(not measured)", "-", "-", "ERROR"]))
                lines.append("  " + error)
            }
            for figure in section.figures where figure.target != nil {
                lines.append(row([section.id, figure.label, figure.display, figure.target ?? "-", verdict(figure)]))
            }
        }
        let tally = PerfTally(sections)
        return lines + ["", "\(tally.passed) passed, \(tally.missed) missed, \(tally.errors) section(s) with errors"]
    }

    /// "machine before the run: 12% of all CPUs busy, load average 0.40", with a warning when busy.
    public static func machine(_ load: PerfMachineLoad) -> String {
        String(format: "machine before the run: %.0f%% of all CPUs busy, load average %.2f", load.busy * 100, load.loadAverage)
            + (load.busy > 0.15 ? " - WARNING: other work is running; figures will be low and noisy" : "")
    }

    /// The debug-build warning appended to each benchmark's headline.
    static var debugWarning: String { perfIsDebugBuild ? " (DEBUG BUILD: figures are not meaningful)" : "" }

    static func row(_ cells: [String]) -> String {
        zip(cells, widths).map { cell, width in cell.padding(toLength: max(width, cell.count + 1), withPad: " ", startingAt: 0) }
            .joined().trimmingCharacters(in: .whitespaces)
    }

    /// "PASS", "MISS", or "-" for a figure without a target.
    static func verdict(_ figure: PerfFigure) -> String {
        figure.pass.map { $0 ? "PASS" : "MISS" } ?? "-"
    }

    static func figureLine(_ figure: PerfFigure) -> String {
        var text = figure.label.padding(toLength: max(36, figure.label.count + 1), withPad: " ", startingAt: 0)
            + figure.display.padding(toLength: max(16, figure.display.count + 1), withPad: " ", startingAt: 0)
        if let target = figure.target {
            text += "target " + target.padding(toLength: max(14, target.count + 1), withPad: " ", startingAt: 0)
            text += figure.pass.map { $0 ? "PASS" : "MISS" } ?? ""
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// Three significant-ish digits: 12.3, 1.23, 0.123, 1234.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let magnitude = abs(value)
        if magnitude >= 100 { return String(format: "%.0f", value) }
        if magnitude >= 10 { return String(format: "%.1f", value) }
        if magnitude >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.3f", value)
    }

    /// A bound as written in a target: 2, 10000, 2.5, 0.02.
    static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    static func wrap(_ text: String, width: Int, indent: String) -> [String] {
        var lines: [String] = []
        var current = indent
        for word in text.split(separator: " ") {
            if current.count + word.count + 1 > width, current.count > indent.count {
                lines.append(current)
                current = indent
            }
            current += (current.count > indent.count ? " " : "") + word
        }
        if current.count > indent.count { lines.append(current) }
        return lines
    }
}
