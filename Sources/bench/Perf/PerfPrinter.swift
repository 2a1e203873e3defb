import ArgumentParser
import BenchCore
import Foundation
import Performance

/// Prints a benchmark's progress as it runs and its summary at the end: on stdout, or on
/// stderr when stdout carries the `--json` report. The lines come from `PerfFormat`.
struct PerfPrinter: Sendable {
    let json: Bool
    /// The first line, from the benchmark's configuration.
    let headline: String

    func show(_ progress: PerfProgress) {
        switch progress {
        case .began(let machine): write([headline, PerfFormat.machine(machine)])
        case .sectionStarted(let index, let title): write(PerfFormat.heading(index, title))
        case .sectionFinished(let section): write(PerfFormat.body(section))
        case .notice(let text): FileHandle.standardError.writeSurvivingSignals(Data((text + "\n").utf8))
        }
    }

    /// The summary, tally and verdict, then the JSON report if asked; exit 1 when `report.failed`.
    func finish(_ report: some PerfReport) throws {
        write(PerfFormat.summary(report.sections) + report.verdictLines)
        if json { FileHandle.standardOutput.writeSurvivingSignals(try report.jsonData() + Data("\n".utf8)) }
        if report.failed { throw ExitCode(1) }
    }

    private func write(_ lines: [String]) {
        let data = Data(lines.map { $0 + "\n" }.joined().utf8)
        (json ? FileHandle.standardError : FileHandle.standardOutput).writeSurvivingSignals(data)
    }
}

extension Set where Element: RawRepresentable & CaseIterable, Element.RawValue == String {
    /// The sections `--only` names (every one without it); an unknown name is a `ValidationError`.
    init(only: String?) throws {
        let names = Element.allCases.map(\.rawValue)
        self = try Set((only?.split(separator: ",").map(String.init) ?? names).map { name in
            guard let section = Element(rawValue: name) else {
                throw ValidationError("--only: unknown section '\(name)'; expected some of \(names.joined(separator: ","))")
            }
            return section
        })
    }
}
