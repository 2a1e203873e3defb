import BenchCore
import Foundation
import Synchronization
import AppProtocol

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
    /// How the interfaces start. The profile's timeline plays in every scenario, overlaid
    /// on the script's own network steps (`ProfileOverlay`'s rule, Profiles/README.md).
    public var interfacesStart: InterfacesStart
    /// The fewest kills followed by a launch after a crash or memory pressure the
    /// scenario must make (`PropertyContext.minimumCrashRestarts`); 0: no minimum.
    public var minimumCrashRestarts: Int
    /// What the script must have made happen for its verdicts to mean anything; each
    /// one not met fails the scenario, saying why.
    public var preconditions: [Precondition]
    /// The capabilities the app must declare in its hello for the scenario to be played;
    /// against an app that lacks one, the scenario is reported `unsupported: <capability>`.
    public var needs: [Capability]
    /// How far into the profile's timeline the scenario starts it (`Profile.starting(at:)`).
    public var profileFrom: Duration
    /// The script; throws `ScenarioError` when a trigger never comes.
    public var script: @Sendable (ScenarioContext) async throws -> Void

    /// Creates a scenario.
    public init(
        name: String, summary: String, asserts: [String], needs: [Capability] = [], focus: InterfaceKind = .wifi,
        targetSeconds: Double = 8, interfacesStart: InterfacesStart = .heldDown, minimumCrashRestarts: Int = 0,
        preconditions: [Precondition] = [], profileFrom: Duration = .zero,
        script: @escaping @Sendable (ScenarioContext) async throws -> Void
    ) {
        self.profileFrom = profileFrom
        self.needs = needs
        self.preconditions = preconditions
        self.interfacesStart = interfacesStart
        self.minimumCrashRestarts = minimumCrashRestarts
        self.name = name
        self.summary = summary
        self.asserts = asserts
        self.focus = focus
        self.targetSeconds = targetSeconds
        self.script = script
    }
}

/// How a scenario's interfaces start, before its script's first step.
public enum InterfacesStart: Sendable, Hashable {
    /// Every interface down (refuse), held down by the scenario: the script brings up
    /// what it needs. Until it does, the profile's changes to an interface's state are
    /// held (its link changes apply all along); from then on the profile plays on it.
    case heldDown
    /// As the profile's initial setup says, nothing held: the profile plays on every
    /// interface from the start.
    case asProfile
}

/// The app under test as a command line: an executable (found on `PATH` when it has
/// no `/`) and its arguments, started again after every kill. It speaks the app
/// protocol on its stdin and stdout; its stderr goes to a file of the run.
public struct AppCommandLine: Sendable, Hashable {
    public var executable: String
    public var arguments: [String]

    /// The command `executable arguments…`.
    public init(executable: String, arguments: [String] = []) {
        self.executable = executable
        self.arguments = arguments
    }

    /// The command as a shell would show it.
    public var description: String {
        ([executable] + arguments).map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
    }
}

/// How the harness starts the app on the scenario's storage.
struct AgentLauncher: Sendable {
    var app: AppLaunch
    var storage: String
    var helloTimeout: Duration = AgentProcess.helloTimeout
    /// Sees every event before the collector does (it reads packages the app finished).
    var packages: PackageWatch?
    /// Where each launch's stderr goes (`launch-<n>.stderr`), read into the report when
    /// the scenario ends; nil: a file in the temporary directory, left to the caller.
    var stderrDirectory: String?
    /// How many launches there were (shared by the copies of this launcher).
    let launches = LaunchCounter()

    /// The stderr file of launch `n` (1-based), when launches keep one in `stderrDirectory`.
    static func stderrFile(_ n: Int, in directory: String) -> String { directory + "/launch-\(n).stderr" }

    func launch(after termination: RelaunchKind, collector: TraceCollector) async throws -> AgentProcess {
        let packages = packages
        let n = launches.next()
        return try await AgentProcess.launch(
            app, storage: storage, after: termination,
            stderrPath: stderrDirectory.map { Self.stderrFile(n, in: $0) }, helloTimeout: helloTimeout,
            now: { collector.now }
        ) { t, event in
            packages?.observe(event)
            collector.agent(event, at: t)
        }
    }
}

/// Numbers the launches of one scenario: 1, 2, 3…
final class LaunchCounter: Sendable {
    private let value = Mutex(0)

    /// How many launches there were.
    var count: Int { value.withLock { $0 } }

    /// The next launch's number.
    func next() -> Int {
        value.withLock { count in
            count += 1
            return count
        }
    }
}
