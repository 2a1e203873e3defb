import BenchCore
import Foundation

/// One measured figure, with its target when it has one.
struct PerfFigure: Codable, Sendable {
    var label: String
    var value: Double
    var unit: String
    /// The value as printed.
    var display: String
    /// E.g. "≥ 9 Gbit/s"; nil when the figure is informational.
    var target: String?
    var pass: Bool?

    init(_ label: String, _ value: Double, unit: String, display: String? = nil, target: String? = nil, pass: Bool? = nil) {
        self.label = label
        self.value = value
        self.unit = unit
        self.display = display ?? PerfFormat.number(value) + (unit.isEmpty ? "" : " " + unit)
        self.target = target
        self.pass = pass
    }
}

/// The figures of one section of the benchmark.
struct PerfSection: Codable, Sendable {
    var id: String
    var title: String
    /// How the figures were measured, in a sentence or two.
    var method: String
    var figures: [PerfFigure] = []
    var notes: [String] = []
    /// Set when the section could not be measured.
    var error: String?
    var seconds: Double = 0
}

struct PerfRunReport: Codable, Sendable {
    var command = "bench perf proxy"
    var quick: Bool
    var rateSeconds: Double
    var cpus: Int
    /// Share of all CPU time used (by anything) in the 0.5 s before the run, and the load average.
    var busyBefore: Double
    var loadAverageBefore: Double
    var sections: [PerfSection]
    var passed: Int
    var missed: Int
    var errors: Int
}

/// Whether this binary is a debug build, whose figures are not meaningful.
let perfIsDebugBuild: Bool = {
    #if DEBUG
    true
    #else
    false
    #endif
}()

/// Figures that passed and missed, and sections that ended with an error.
struct PerfTally {
    var passed: Int
    var missed: Int
    var errors: Int

    init(_ sections: [PerfSection]) {
        let figures = sections.flatMap(\.figures)
        passed = figures.filter { $0.pass == true }.count
        missed = figures.filter { $0.pass == false }.count
        errors = sections.filter { $0.error != nil }.count
    }
}

/// Prints sections as they complete (stdout, or stderr when stdout carries JSON).
final class PerfPrinter {
    let json: Bool

    init(json: Bool) { self.json = json }

    func line(_ text: String = "") {
        let data = Data((text + "\n").utf8)
        if json { FileHandle.standardError.writeSurvivingSignals(data) } else { FileHandle.standardOutput.writeSurvivingSignals(data) }
    }

    func heading(_ index: Int, _ title: String) {
        line()
        line("\(index). \(title)")
        line(String(repeating: "-", count: title.count + 3))
    }

    func body(_ section: PerfSection) {
        for line in PerfFormat.wrap(section.method, width: 96, indent: "   ") { self.line(line) }
        for figure in section.figures { line("   " + PerfFormat.figureLine(figure)) }
        for note in section.notes {
            for (i, text) in PerfFormat.wrap(note, width: 96, indent: "     ").enumerated() {
                line(i == 0 ? "   - " + text.dropFirst(5) : text)
            }
        }
        if let error = section.error { line("   ERROR: \(error)") }
        line(String(format: "   (%.1f s)", section.seconds))
    }

    /// The summary table, then the tally line; returns the tally.
    func finish(_ sections: [PerfSection]) -> PerfTally {
        summary(sections)
        let tally = PerfTally(sections)
        line()
        line("\(tally.passed) passed, \(tally.missed) missed, \(tally.errors) section(s) with errors")
        return tally
    }

    /// Writes `report` as pretty JSON on stdout.
    func writeJSON(_ report: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        FileHandle.standardOutput.writeSurvivingSignals(try encoder.encode(report) + Data("\n".utf8))
    }

    func summary(_ sections: [PerfSection]) {
        line()
        line("Summary")
        line("-------")
        let header = PerfFormat.row(["section", "figure", "measured", "target", "result"])
        line(header)
        line(String(repeating: "-", count: header.count))
        for section in sections {
            if let error = section.error {
                line(PerfFormat.row([section.id, "(not measured)", "-", "-", "ERROR"]))
                line("  " + error)
            }
            for figure in section.figures where figure.target != nil {
                let result = figure.pass.map { $0 ? "PASS" : "MISS" } ?? "-"
                line(PerfFormat.row([section.id, figure.label, figure.display, figure.target ?? "-", result]))
            }
        }
    }
}

enum PerfFormat {
    static let widths = [12, 34, 16, 16, 6]

    static func row(_ cells: [String]) -> String {
        zip(cells, widths).map { cell, width in cell.padding(toLength: max(width, cell.count + 1), withPad: " ", startingAt: 0) }
            .joined().trimmingCharacters(in: .whitespaces)
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
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let magnitude = abs(value)
        if magnitude >= 100 { return String(format: "%.0f", value) }
        if magnitude >= 10 { return String(format: "%.1f", value) }
        if magnitude >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.3f", value)
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

enum PerfStats {
    /// Nearest-rank percentile of `values` (sorted or not); 0 for no values.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }

    /// Jain's fairness index: (Σx)² / (n·Σx²); 1 is perfectly fair.
    static func jain(_ values: [Double]) -> Double {
        let sum = values.reduce(0, +)
        let squares = values.reduce(0) { $0 + $1 * $1 }
        return squares == 0 ? 0 : sum * sum / (Double(values.count) * squares)
    }
}
