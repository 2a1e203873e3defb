import Foundation

extension Baseline {
    /// What `bench run` compares with when no `--baseline` is given.
    public enum DefaultChoice: Sendable, Hashable {
        /// The baseline at `path`, made with the run's profile.
        case use(Baseline, path: String)
        /// None; `reason` says why, for the report page (e.g. made with another profile).
        case none(reason: String)
    }

    /// The baseline at `path` (default `Reports/baseline.json`) when it exists, reads,
    /// and was made with the profile named `profile`; otherwise why not. Called by
    /// `bench run` after the run, on its own task; reads one file.
    public static func defaultChoice(for profile: String, at path: String = defaultPath) -> DefaultChoice {
        guard FileManager.default.fileExists(atPath: path) else {
            return .none(reason: "there is no default baseline at \(path)")
        }
        let baseline: Baseline
        do { baseline = try read(from: URL(fileURLWithPath: path)) } catch {
            return .none(reason: "the default baseline cannot be used: \(error)")
        }
        guard let made = baseline.profile else {
            return .none(reason: "the default baseline \(path) does not say which profile it was made with "
                + "(update it with `bench gate --update-baseline`)")
        }
        guard made == profile else {
            return .none(reason: "the default baseline \(path) was made with profile \(made), this run used \(profile)")
        }
        return .use(baseline, path: path)
    }
}

extension GateComparison {
    /// What `bench run` compares `report` with on its HTML page: the baseline at `path`
    /// (`--baseline`), else the default one when it was made with the run's profile;
    /// `note` says which, or why there is none, and `warning` is set when `path` could
    /// not be read. `partial`: only some scenarios ran. Reads at most one file.
    public static func forRun(
        _ report: RunReport, baselinePath path: String?, partial: Bool
    ) -> (comparison: GateComparison?, note: String, warning: String?) {
        if let path {
            do {
                let read = try Baseline.read(from: URL(fileURLWithPath: path))
                return (GateComparison(report: report, baseline: read, onlyScenariosRun: partial), "Compared with \(path).", nil)
            } catch {
                return (nil, "No baseline column: \(error).", "\(error); the report has no baseline column")
            }
        }
        switch Baseline.defaultChoice(for: report.run.profile) {
        case let .use(baseline, path):
            let comparison = GateComparison(report: report, baseline: baseline, onlyScenariosRun: partial)
            return (comparison, "Compared with the default baseline \(path), made with profile \(report.run.profile).", nil)
        case let .none(reason):
            return (nil, "No baseline column: \(reason). Pass --baseline FILE to compare with one.", nil)
        }
    }
}
