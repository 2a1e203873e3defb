import Foundation

/// What properties are judged against besides the trace: bounds, and what the
/// origin serves (its renditions, the hashes of what the app claimed). Made by the
/// runner (from the scenario and the origin) once per scenario; a plain `Sendable`
/// value, defaults as DESIGN.md §5 states them.
public struct PropertyContext: Sendable, Hashable {
    /// How soon after the last allowed interface goes down a running download must be
    /// `suspended(network)`.
    public var suspendBound: Duration
    /// How soon after an allowed interface returns a suspended download must be
    /// `downloading` again.
    public var resumeBound: Duration
    /// How soon after a launch that follows a force-quit (or a reboot while suspended)
    /// the downloads that were in flight must be reported `failed`.
    public var forceQuitBound: Duration
    /// The most origin requests one download may make during one outage.
    public var maximumRequestsPerOutage: Int
    /// The connection attempts the app may make at once when an outage begins, on the
    /// interfaces of the outage (`bounded-retries`: at most `retryBurst + retryRate ×
    /// seconds` per outage). Default 10: the requests in flight fail together and are
    /// retried at once (Deadzone's engine fetches 2 segments at a time, about 2
    /// connects per retry).
    public var retryBurst: Int
    /// The connection attempts per second of outage the app may make on top of
    /// `retryBurst`. Default 1: an app that backs off (Deadzone's engine: from 0.5 s,
    /// doubling, full jitter, up to 30 s) stays well under it after its first retries;
    /// one that retries a refused port with no backoff makes tens per second.
    public var retryRate: Double
    /// A retry that starts within this of the failure before it (a refusal, a reset,
    /// a connection the app gave up on) is immediate (`bounded-retries`). Default 5 ms:
    /// no backoff waits that little twice in a row but by a chance of about 1 in 20,000
    /// (full jitter from 0.5 s), while a client with no backoff reconnects in 1–2 ms.
    public var retryImmediateWindow: Duration = .milliseconds(5)
    /// The most immediate retries in a row in one outage, per transfer the outage cut
    /// (`bounded-retries`). Default 1: one at once (a client retrying a stale connection
    /// once) is fair; a second in a row means no backoff.
    public var retryImmediateRun = 1
    /// SHA-256 (lowercase hex) of what the origin serves at each path the app claimed
    /// a hash for (`AppInspection.segmentHashes`), keyed as claimed (e.g.
    /// `/videos/clear/400k/seg3.ts`): what `integrity` checks those claims against.
    /// The runner makes it from its own origin; paths the origin does not serve are absent.
    public var hashManifest: [String: String]
    /// The origin's renditions of the videos downloaded (each media playlist's segment
    /// paths in order): `integrity` and `offline-playback` learn from it which
    /// renditions the app chose. Empty when the runner has none: they cannot tell then.
    public var renditions: OriginRenditions
    /// The wall-clock time at the run's epoch (trace time 0), e.g. `RunMetadata.startedAt`,
    /// which lets an inspection's trace time be compared with a license expiration.
    /// Nil when unknown: expired rentals are then recognised only by what the agent said.
    public var epochWallClock: Date?
    /// Slack when comparing an expiration with the wall clock derived from trace time
    /// (the two processes' clocks, and the derivation, are not exact).
    public var expiryTolerance: Duration
    /// How soon after the user pauses a running download it must be `suspended(user)`.
    public var pauseBound: Duration
    /// How long after a pause took effect a request may still reach the origin: one
    /// the engine sent just before it, still crossing the link's delay. Requests that
    /// start later, while paused, break `pause-holds`.
    public var pauseGrace: Duration
    /// The fewest kills followed by a launch after a crash or memory pressure the trace
    /// must have (0: no minimum). The runner sets it from `Scenario.minimumCrashRestarts`.
    public var minimumCrashRestarts: Int
    /// How long the app may go without bytes before it notices a stall: the stall
    /// timeout the harness gave the app (`HarnessOptions.stallTimeout`).
    public var stallTimeout: Duration
    /// The longest wait between retries the harness accepts from an app that backs off
    /// (DESIGN.md §4: retries back off with jitter; 30 s is a common cap).
    public var backoffBound: Duration
    /// When interfaces that are up deliver nothing (total loss, no rate), from the
    /// links the runner gave the conditioner; empty: every link delivers.
    public var unreachable: LinkReachability

    /// The videos whose catalog entry is not offline-enabled (`offline_enabled: false`):
    /// a failure of one of their downloads is justified. The runner fills it from its
    /// origin's catalog; empty by default.
    public var offlineDisabled: Set<String> = []

    /// The longest silence `liveness` allows while a download could go on: the stall
    /// timeout plus the backoff bound.
    public var livenessBound: Duration { stallTimeout + backoffBound }

    /// Creates a context; every bound has its default.
    public init(
        suspendBound: Duration = .seconds(15), resumeBound: Duration = .seconds(15),
        forceQuitBound: Duration = .seconds(5), maximumRequestsPerOutage: Int = 20,
        hashManifest: [String: String] = [:], epochWallClock: Date? = nil, expiryTolerance: Duration = .seconds(1),
        pauseBound: Duration = .seconds(5), pauseGrace: Duration = .seconds(1), minimumCrashRestarts: Int = 0,
        stallTimeout: Duration = .seconds(4), backoffBound: Duration = .seconds(30),
        unreachable: LinkReachability = LinkReachability(), retryBurst: Int = 10, retryRate: Double = 1,
        renditions: OriginRenditions = OriginRenditions()
    ) {
        self.suspendBound = suspendBound
        self.resumeBound = resumeBound
        self.forceQuitBound = forceQuitBound
        self.maximumRequestsPerOutage = maximumRequestsPerOutage
        self.hashManifest = hashManifest
        self.epochWallClock = epochWallClock
        self.expiryTolerance = expiryTolerance
        self.pauseBound = pauseBound
        self.pauseGrace = pauseGrace
        self.minimumCrashRestarts = minimumCrashRestarts
        self.stallTimeout = stallTimeout
        self.backoffBound = backoffBound
        self.unreachable = unreachable
        self.retryBurst = retryBurst
        self.retryRate = retryRate
        self.renditions = renditions
    }
}
