/// A network profile: the initial link of each interface, a timeline of phases, and
/// windows of origin faults on the same timeline.
///
/// Profiles describe the network only (no app behaviour). They are read from
/// YAML by `Profile.load(contentsOf:)`; every phase in `timeline` carries the fully
/// resolved setup of each interface it changes, so a player never has to merge.
public struct Profile: Equatable, Sendable {
    public var name: String
    public var description: String
    /// Seed for every random choice the profile causes (jitter, loss, faults).
    public var seed: UInt64
    /// How long the profile runs; the timeline never goes past it.
    public var duration: Duration
    /// Setup of each interface at offset zero. Both kinds are always present.
    public var initial: [InterfaceKind: InterfaceSetup]
    /// Phases in order of `at`.
    public var timeline: [Phase]
    /// How path changes reach the app unless a phase says otherwise.
    public var pathUpdates: PathUpdatePolicy
    /// When the fixture origin misbehaves, in order of `at` (the `origin:` section).
    public var origin: [OriginFaultWindow]
    /// The file this profile came from, when it came from one.
    public var sourcePath: String?

    public init(
        name: String,
        description: String = "",
        seed: UInt64 = 1,
        duration: Duration = .seconds(60),
        initial: [InterfaceKind: InterfaceSetup] = [:],
        timeline: [Phase] = [],
        pathUpdates: PathUpdatePolicy = .immediate,
        origin: [OriginFaultWindow] = [],
        sourcePath: String? = nil
    ) {
        self.name = name
        self.description = description
        self.seed = seed
        self.duration = duration
        var filled = initial
        for kind in InterfaceKind.allCases where filled[kind] == nil {
            filled[kind] = InterfaceSetup.defaultSetup(for: kind)
        }
        self.initial = filled
        self.timeline = timeline.sorted { $0.at < $1.at }
        self.pathUpdates = pathUpdates
        self.origin = origin.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        self.sourcePath = sourcePath
    }
}

/// The state and link of one interface.
public struct InterfaceSetup: Equatable, Sendable {
    public var state: InterfaceState
    public var link: InterfaceLink

    public init(state: InterfaceState = .up, link: InterfaceLink = InterfaceLink()) {
        self.state = state
        self.link = link
    }

    /// Up, unshaped; cellular is expensive.
    public static func defaultSetup(for kind: InterfaceKind) -> InterfaceSetup {
        InterfaceSetup(state: .up, link: InterfaceLink(isExpensive: kind.isExpensiveByDefault))
    }
}

/// One step of a profile's timeline.
public struct Phase: Equatable, Sendable {
    /// Offset from the start of the run.
    public var at: Duration
    /// A short human label (`tunnel 1`), shown in events and reports.
    public var label: String?
    /// The new, fully resolved setup of each interface this phase changes.
    public var changes: [InterfaceKind: InterfaceSetup]
    /// Overrides the profile's path update policy for the path change this phase causes.
    public var pathUpdate: PathUpdatePolicy?

    public init(
        at: Duration,
        label: String? = nil,
        changes: [InterfaceKind: InterfaceSetup],
        pathUpdate: PathUpdatePolicy? = nil
    ) {
        self.at = at
        self.label = label
        self.changes = changes
        self.pathUpdate = pathUpdate
    }
}

/// How a change of the network path reaches the app.
public enum PathUpdatePolicy: Equatable, Sendable {
    /// Published as soon as it happens.
    case immediate
    /// Published after a delay (the OS is often late).
    case delayed(Duration)
    /// Never published (the app must notice by itself).
    case withheld
}
