import ArgumentParser
import BenchReports
import Foundation
import ResilienceHarness

extension GateCommand {
    /// `bench gate --calibrate N`: N runs of the suite, one after the other, each with its
    /// reports in `<out>/run-<i>`, then the calibrated baseline written to `--baseline`.
    /// Exit 1 (file unchanged) when a run failed or a metric was not measured every time.
    func calibrateBaseline(runs: Int, suite: SuiteRun, previous: Baseline) async throws {
        guard runs >= CalibrationRule.minimumRuns else { exitBadInput(CalibrationError.tooFewRuns(runs).description) }
        let directory = options.out ?? "Reports/calibration"
        var reports: [RunReport] = []
        var suite = suite
        for index in 1...runs {
            print("calibration run \(index) of \(runs)")
            if options.https { suite.httpsDirectory = directory + "/run-\(index)" }
            let run: HarnessRun
            do { run = try await suite.run() } catch { exitBadInput(error.description) }
            let files = try SuiteRun.write(run, comparison: nil, to: directory + "/run-\(index)")
            print(SummaryTable.render(run.report) + "\nreport: \(files.reportHTML.path)\n")
            reports.append(run.report)
        }
        let calibrated: Baseline
        do { calibrated = try Baseline.calibrated(from: reports, previous: previous) } catch {
            print("gate: FAIL: --calibrate refused: \(error.description)\n\(baseline) is unchanged.")
            throw ExitCode(1)
        }
        try calibrated.write(to: URL(fileURLWithPath: baseline))
        for line in calibrated.calibrationLines() { print(line) }
        print("baseline written: \(baseline)")
    }
}
