/// What happened during one scenario, laid out on its time window: who changed the
/// network (the profile's phases, the scenario's own steps, the profile's origin fault
/// windows), the state of each interface, the bytes each carried, each download's
/// states, the app's lifecycle, and the kills and launches. A pure value built from trace entries
/// (`Timeline+Building.swift`) and drawn by `TimelineSVG`.
struct Timeline: Equatable {
    /// The window, in nanoseconds since the run's epoch (`end > start`).
    var start: UInt64
    var end: UInt64
    /// One per interface seen in the trace up to `end`, sorted by name.
    var interfaces: [InterfaceLane]
    /// One per download named in the window, in order of first appearance.
    var downloads: [StateLane]
    /// Foreground and background spans (nothing before the first lifecycle event).
    var lifecycle: [Span]
    var markers: [Marker]
    /// Where each failed property was first seen (`HTMLReport` adds them from the verdicts).
    var failures: [FailureMark] = []
    /// The profile's phases (`NetworkChange.Kind.profile` or `.profileHeld`), each at its instant.
    var profileChanges: [NetworkChange]
    /// The scenario's own network steps (`.harness(.interfaceSet)`).
    var scenarioSteps: [NetworkChange]
    /// The profile's origin fault windows, cut to the window.
    var originFaults: [FaultWindow]
    /// The width of a throughput bucket.
    var bucketNanoseconds: UInt64

    /// A time range in a given state. `state` is a stable word used for colour and
    /// legend (`up`, `down(reset)`, `downloading`, `suspended(network)`, `background`…).
    struct Span: Equatable {
        var start: UInt64
        var end: UInt64
        var state: String
        /// The trace line that began it (its JSON, as in `trace.jsonl`), for the hover;
        /// empty when the window began in it.
        var cause: String = ""
    }

    /// One interface: its up/down spans and its downlink bytes per bucket.
    struct InterfaceLane: Equatable {
        var name: String
        var spans: [Span]
        /// Bytes per bucket, `bucketNanoseconds` wide, from `start`.
        var bytesPerBucket: [Double]
        /// Where the bytes were counted: `conditioner`, `origin`, or `none`.
        var throughputSource: String
    }

    /// One download: its state spans.
    struct StateLane: Equatable {
        /// The download's token, as the app named it.
        var name: String
        /// The catalog video it downloads (from the user's request), when the window shows it.
        var video: String? = nil
        var spans: [Span]
    }

    /// An instant worth a vertical line: the agent killed, launched, or exiting by itself.
    struct Marker: Equatable {
        var t: UInt64
        var kind: Kind
        var text: String
        /// The trace line behind it (its JSON).
        var cause: String = ""

        enum Kind: String, CaseIterable { case killed, launched, exited }
    }

    /// A failed property, at the first moment its evidence names (the window's end when
    /// it names none).
    struct FailureMark: Equatable {
        var t: UInt64
        var property: String
        /// The verdict's summary.
        var text: String
        /// The mark's id in the page, the target of the grid's link.
        var anchor: String
    }

    /// A change of the network at one instant, and who made it.
    struct NetworkChange: Equatable {
        var t: UInt64
        var kind: Kind
        /// What changed, for the tooltip: `drop 1 (reset): wifi down(reset)`.
        var text: String
        /// The trace line behind it (its JSON), for the hover.
        var cause: String = ""

        enum Kind: String, CaseIterable {
            /// A phase of the profile that applied.
            case profile
            /// A phase of the profile some of whose state changes the scenario held off.
            case profileHeld = "profile-held"
            /// A network step of the scenario.
            case scenario
        }
    }

    /// A window of the profile's `origin:` section, while the origin misbehaved.
    struct FaultWindow: Equatable {
        var start: UInt64
        var end: UInt64
        var text: String
    }

    /// The state the download lanes show while the agent process is dead.
    static let agentDown = "agent not running"
}
