import BenchCore
import Foundation
import OfflineDownloads

/// One scenario of the suite: a script that plays the OS and the user against the app
/// under the profile's links, and the properties it exists to exercise.
public struct Scenario: Sendable {
    /// Stable kebab-case name (`--scenario NAME`).
    public var name: String
    /// One sentence: what it does and what it asserts.
    public var summary: String
    /// Properties this scenario must exercise: a not-applicable verdict for one of them
    /// is a failure (the script did not make the situation it exists to make).
    public var asserts: [String]
    /// The interface whose rate sizes the content, and how long the clear video's
    /// lowest variant should take on it.
    public var focus: InterfaceKind
    public var targetSeconds: Double
    /// Whether the profile's own timeline plays under the script (interfaces start as
    /// the profile says); otherwise every interface starts down and the script rules.
    public var playsProfile: Bool
    /// The fewest kills followed by a launch after a crash or memory pressure the
    /// scenario must make (`PropertyContext.minimumCrashRestarts`); 0: no minimum.
    public var minimumCrashRestarts: Int
    /// The script; throws `ScenarioError` when a trigger never comes.
    public var script: @Sendable (ScenarioContext) async throws -> Void

    /// Creates a scenario.
    public init(
        name: String, summary: String, asserts: [String], focus: InterfaceKind = .wifi, targetSeconds: Double = 8,
        playsProfile: Bool = false, minimumCrashRestarts: Int = 0,
        script: @escaping @Sendable (ScenarioContext) async throws -> Void
    ) {
        self.playsProfile = playsProfile
        self.minimumCrashRestarts = minimumCrashRestarts
        self.name = name
        self.summary = summary
        self.asserts = asserts
        self.focus = focus
        self.targetSeconds = targetSeconds
        self.script = script
    }
}

/// How the harness starts the app: `bench agent` with the scenario's storage.
struct AgentLauncher: Sendable {
    var executable: String
    var storage: String
    var stallTimeout: Duration
    var seed: UInt64
    var misbehavior: AgentMisbehavior?

    func launch(after termination: ProcessTermination, collector: TraceCollector) throws -> AgentProcess {
        let seconds = Double(stallTimeout.nanoseconds) / 1e9
        var arguments = [
            "agent", "--storage", storage, "--after", termination.rawValue, "--stall-timeout", String(seconds),
            "--seed", String(seed),
        ]
        if let misbehavior { arguments += ["--misbehave", misbehavior.rawValue] }
        return try AgentProcess.launch(executable: executable, arguments: arguments) { t, event in
            collector.agent(event, at: t)
        }
    }
}
