/// How Deadzone's engine, behind its adapter, deliberately misbehaves (`bench agent
/// --misbehave NAME`), to show that the harness catches it: each variant breaks one
/// property of DESIGN.md §5, and the harness must report exactly that one failed.
public enum AgentMisbehavior: String, Sendable, Hashable, Codable, CaseIterable {
    /// Hands cellular to the engine as if it were WiFi, so downloads not allowed
    /// cellular use it (breaks `cellular-policy`).
    case ignoreCellularPolicy = "ignore-cellular-policy"
    /// Reports a download that the engine suspends for the network as failed, and
    /// stops it, as an app that treats a lost network as an error does (breaks
    /// `auto-suspend-on-disconnect`).
    case failOnOutage = "fail-on-outage"
    /// After a crash, throws away every stored segment so the engine fetches the whole
    /// video again (breaks `crash-recovery`).
    case refetchAfterCrash = "refetch-after-crash"
    /// After a crash (or a kill for memory), throws away the `.part` file of every
    /// partial segment, so the engine fetches each from byte 0 instead of resuming it
    /// with Range (breaks `crash-recovery`).
    case restartPartialSegments = "restart-partial-segments"
    /// Answers `prepareForBackground` at once without finishing license exchanges
    /// (breaks `license-before-background`).
    case backgroundBeforeLicense = "background-before-license"
    /// For every download requested, also fetches the video's master playlist straight
    /// from the origin, around the interface it was given, as a prefetcher built on
    /// another HTTP stack that forgets the app's interface policy would (on a phone that
    /// request takes whatever route is up, cellular included). The download itself goes
    /// through the path as usual (breaks `cellular-policy`).
    case bypassConditioner = "bypass-conditioner"
    /// While the path it was last given has no interface, opens raw TCP connections to
    /// the last known endpoint of every interface every 20 ms until the path returns,
    /// as an app that probes reachability aggressively (or retries a refused port with
    /// no backoff) does (breaks `bounded-retries`).
    case hammerRefusedPort = "hammer-refused-port"
    /// Beside each media segment it stored, reports one it never fetched: the same
    /// segment of another variant (breaks `integrity`: the origin never sent it).
    case claimsUnstoredSegments = "claims-unstored-segments"
    /// Reports a download downloaded, and its package finished, as soon as all but one
    /// of its items are stored, while the last is still under way; the engine's own
    /// later report is not told, so the states stay a legal chain (breaks `integrity`:
    /// the package the harness reads then lacks a segment).
    case claimsDownloadedEarly = "claims-downloaded-early"
    /// Reports `licenseAcquired` for each protected download as soon as it is
    /// requested, before the engine holds any license, and answers
    /// `prepareForBackground` at once with nothing unfinished: the engine really gets its
    /// licenses later (refused in the background, fetched after the app returned to the
    /// foreground). Claims with no license behind them (breaks `license-before-background`).
    case fakeLicense = "fake-license"
    /// The engine's transfer does not wait for the license before fetching encrypted
    /// segments (`EngineConfiguration.transferSkipsLicenseGate`); the license exchange
    /// runs alongside. Against a slow license server the first segments start before
    /// the license arrives (breaks `license-before-background`).
    case segmentsBeforeLicense = "segments-before-license"

    /// The property each misbehaviour must make fail.
    public var brokenProperty: String {
        switch self {
        case .ignoreCellularPolicy: "cellular-policy"
        case .failOnOutage: "auto-suspend-on-disconnect"
        case .refetchAfterCrash, .restartPartialSegments: "crash-recovery"
        case .backgroundBeforeLicense, .fakeLicense, .segmentsBeforeLicense: "license-before-background"
        case .bypassConditioner: "cellular-policy"
        case .hammerRefusedPort: "bounded-retries"
        case .claimsUnstoredSegments, .claimsDownloadedEarly: "integrity"
        }
    }
}
