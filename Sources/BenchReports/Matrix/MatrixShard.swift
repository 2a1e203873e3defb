/// How a sharded `bench matrix` names its units of work: one scenario of one run (an
/// engine under a profile), `engine--profile/scenario`.
public enum MatrixShard {
    /// The key of `scenario` in the run whose report directory is `run`.
    public static func key(run: String, scenario: String) -> String { "\(run)/\(scenario)" }
}
