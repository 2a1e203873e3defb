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
