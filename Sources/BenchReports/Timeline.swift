/// What happened during one scenario, laid out on its time window: the state of each
/// interface, the bytes each carried, each download's states, the app's lifecycle,
/// and the kills and launches. A pure value built from trace entries
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
    /// The width of a throughput bucket.
    var bucketNanoseconds: UInt64

    /// A time range in a given state. `state` is a stable word used for colour and
    /// legend (`up`, `down(reset)`, `downloading`, `suspended(network)`, `background`…).
    struct Span: Equatable {
        var start: UInt64
        var end: UInt64
        var state: String
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
        var name: String
        var spans: [Span]
    }

    /// An instant worth a vertical line: the agent killed, launched, or exiting by itself.
    struct Marker: Equatable {
        var t: UInt64
        var kind: Kind
        var text: String

        enum Kind: String, CaseIterable { case killed, launched, exited }
    }

    /// The state the download lanes show while the agent process is dead.
    static let agentDown = "agent not running"
}
