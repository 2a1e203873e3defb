import AppProtocol
import BenchCore

/// What one scenario file (`Scenarios/<name>.yaml`, docs/scenario-format.md) holds: the
/// scenario's identity, what it asserts and needs, and its steps. A plain value: a
/// generator can build one, a shrinker can drop steps from one, and `yaml` writes it back
/// as a file `ScenarioFile.parse` reads to an equal value.
///
/// `Scenario(file)` turns it into the runtime scenario whose script `ScenarioInterpreter`
/// plays.
public struct ScenarioFile: Sendable, Hashable {
    /// Stable kebab-case name (`--scenario NAME`).
    public var name: String
    /// One paragraph: what it does and what it asserts.
    public var summary: String
    /// Property ids (`Properties.all`) the scenario exists to exercise: a not-applicable
    /// verdict for one of them fails the scenario.
    public var asserts: [String]
    /// Capabilities the app must declare for the scenario to be played.
    public var needs: [Capability]
    /// The interface whose rate sizes the content (default WiFi).
    public var focus: InterfaceKind
    /// How long the clear video's lowest variant should take on `focus`, in seconds (default 8).
    public var targetSeconds: Double
    /// The fewest kills followed by a relaunch after a crash the scenario must make (default 0).
    public var minimumCrashRestarts: Int
    /// How far into the profile's timeline the scenario starts it (`profile-from`,
    /// `Profile.starting(at:)`); 0 plays it from its start.
    public var profileFrom: Duration = .zero
    /// What the steps must have made happen for the verdicts to mean anything.
    public var preconditions: [ScenarioPreconditionSpec]
    /// What the harness does, in order.
    public var steps: [ScenarioStep]

    /// Default of `targetSeconds`.
    public static let defaultTargetSeconds = 8.0

    /// A scenario file's value; the defaults are the file format's.
    public init(
        name: String, summary: String, asserts: [String] = [], needs: [Capability] = [], focus: InterfaceKind = .wifi,
        targetSeconds: Double = ScenarioFile.defaultTargetSeconds, minimumCrashRestarts: Int = 0,
        preconditions: [ScenarioPreconditionSpec] = [], steps: [ScenarioStep]
    ) {
        self.name = name
        self.summary = summary
        self.asserts = asserts
        self.needs = needs
        self.focus = focus
        self.targetSeconds = targetSeconds
        self.minimumCrashRestarts = minimumCrashRestarts
        self.preconditions = preconditions
        self.steps = steps
    }

    /// Whether a step brings an interface up or takes one down. A scenario with none
    /// starts its interfaces as the profile says and holds none; otherwise every
    /// interface starts down, held by the scenario, and the steps bring up what they
    /// need (`InterfacesStart`). The profile's timeline plays under both.
    public var drivesTheNetwork: Bool {
        steps.contains {
            switch $0 {
            case .up, .down: true
            default: false
            }
        }
    }

    /// One line for `bench scenario check`: the name, the number of steps, what it
    /// asserts and needs.
    public var oneLineSummary: String {
        let asserted = asserts.isEmpty ? "asserts nothing in particular" : "asserts " + asserts.joined(separator: ", ")
        let needed = needs.isEmpty ? "needs no capability" : "needs " + needs.map(\.rawValue).joined(separator: ", ")
        return "\(name): \(steps.count) step\(steps.count == 1 ? "" : "s"), \(preconditions.count) "
            + "precondition\(preconditions.count == 1 ? "" : "s"); \(asserted); \(needed)"
    }
}

extension Scenario {
    /// The runtime scenario of `file`: its script plays the file's steps
    /// (`ScenarioInterpreter`) against the scenario's context. `videos` maps a fixture
    /// video's id to the recorded stream requested in its place (`--video`,
    /// `VideoSubstitution`): the download keeps the fixture's name; the script notes the
    /// mapping first.
    public init(_ file: ScenarioFile, videos: [String: String] = [:]) {
        self.init(
            name: file.name, summary: file.summary, asserts: file.asserts, needs: file.needs, focus: file.focus,
            targetSeconds: file.targetSeconds, interfacesStart: file.drivesTheNetwork ? .heldDown : .asProfile,
            minimumCrashRestarts: file.minimumCrashRestarts, preconditions: file.preconditions.map(\.precondition),
            profileFrom: file.profileFrom
        ) { context in
            if !videos.isEmpty {
                let mapped = videos.sorted { $0.key < $1.key }.map { "\($0.key) is the recorded stream \($0.value)" }
                await context.note("--video: " + mapped.joined(separator: ", "))
            }
            var interpreter = ScenarioInterpreter(steps: file.steps, videos: videos)
            try await interpreter.run(on: context)
        }
    }
}
