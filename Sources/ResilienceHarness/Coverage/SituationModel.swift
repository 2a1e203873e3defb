import BenchResults

/// The situation model's meaningful pairs: which incident, in which context, exercises
/// which properties, and why the pair matters (a bug that lives there). docs/situations.md
/// is the same table in words; `SituationModelTests` keeps the two and the properties'
/// ids in step. A pair not listed may still be created and is counted apart.
public enum SituationModel {
    /// One meaningful pair.
    public struct Entry: Sendable, Hashable {
        public var incident: Incident
        public var context: SituationContext
        public var properties: [String]
        public var why: String

        public var pair: SituationPair { SituationPair(incident: incident.rawValue, context: context.rawValue) }
    }

    private static func entry(_ incident: Incident, _ context: SituationContext, _ properties: [String], _ why: String)
        -> Entry
    {
        Entry(incident: incident, context: context, properties: properties, why: why)
    }

    /// Every meaningful pair, by dimension.
    public static let meaningful: [Entry] = network + origin + lifecycle + user

    static let network: [Entry] = [
        entry(.downReset, .midSegment, ["auto-suspend-on-disconnect", "bounded-retries", "liveness", "integrity"],
              "connections reset mid-transfer: suspend, keep what was stored, do not storm"),
        entry(.downRefuse, .midSegment, ["auto-suspend-on-disconnect", "bounded-retries", "liveness"],
              "connections closed mid-transfer: a clean FIN must not pass for the end of a segment"),
        entry(.downBlackhole, .midSegment, ["liveness", "auto-suspend-on-disconnect"],
              "a dead link the OS still shows: only a stall timeout can tell"),
        entry(.downReset, .playlists, ["bounded-retries", "liveness"], "an outage before any segment: no hot loop on the playlists"),
        entry(.downReset, .license, ["bounded-retries", "license-before-background"],
              "an outage during the license exchange: retried, not given up"),
        entry(.pathUpdateLate, .suspendedForNetwork, ["bounded-retries", "liveness"],
              "a download's interfaces are gone and the app still believes in the path: its retries must back off"),
        entry(.pathUpdateWithheld, .suspendedForNetwork, ["bounded-retries", "liveness"],
              "a download's interfaces are gone and no path update comes: only the app's own timeouts can notice"),
        entry(.wifiBack, .suspendedForNetwork, ["auto-suspend-on-disconnect", "liveness"],
              "WiFi coming back must resume a suspended download (ExoPlayer #7453)"),
        entry(.cellularBackAlone, .suspendedForNetwork, ["auto-suspend-on-disconnect", "cellular-policy", "liveness"],
              "only cellular comes back: resume what may use it, leave the rest"),
        entry(.cellularBackAlone, .mayNotUseCellular, ["cellular-policy"],
              "a download that may not use cellular must stay off it when only cellular is up"),
        entry(.wifiBack, .cellularOnly, ["cellular-policy", "auto-suspend-on-disconnect"],
              "moving back from cellular to WiFi mid-download (androidx/media #1712)"),
        entry(.bodyCut, .midSegment, ["integrity", "liveness", "justified-failure"],
              "a connection reset mid-body while the interface stays up: resume by range, store nothing torn, never fail"),
        entry(.bodyClosed, .midSegment, ["integrity", "liveness"],
              "a body that ends early with a clean close: a truncated segment must not be taken as whole"),
        entry(.downReset, .paused, ["pause-holds"],
              "an interface lost during a pause: the pause is the user's, the network must not end it"),
        entry(.wifiBack, .paused, ["pause-holds"],
              "WiFi back during a pause: a download paused by the user stays paused (no unpause on path return)"),
    ]

    static let origin: [Entry] = [
        entry(.originStatusFault, .midSegment, ["bounded-retries", "liveness", "justified-failure"],
              "server errors mid-download: retried with backoff, not a storm, not given up at once"),
        entry(.originStatusFault, .playlists, ["bounded-retries", "liveness", "justified-failure"],
              "server errors on the playlists: a 503 is passing, never a reason to fail"),
        entry(.captivePortal, .midSegment, ["integrity", "liveness"], "a portal page in place of a segment must never be stored"),
        entry(.captivePortal, .playlists, ["integrity"], "a portal page in place of a playlist must never be parsed as one"),
        entry(.slowLicense, .license, ["license-before-background"],
              "a slow license server: no encrypted segment before the license"),
    ]

    static let lifecycle: [Entry] = [
        entry(.killCrash, .midSegment, ["crash-recovery", "integrity"], "a crash mid-segment: resume, fetch nothing stored again"),
        entry(.killCrash, .license, ["crash-recovery", "license-before-background"], "a crash during the license exchange"),
        entry(.killCrash, .playlists, ["crash-recovery"], "a crash before the first segment"),
        entry(.killCrash, .lastSegment, ["crash-recovery", "integrity"],
              "a crash on the last segment: in-progress must not become complete (WWDC app #163)"),
        entry(.killMemoryPressure, .midSegment, ["crash-recovery"], "the system ends the app mid-download"),
        entry(.killForceQuit, .midSegment, ["crash-recovery", "legal-transitions"],
              "a force-quit: the downloads in flight fail, nothing is resumed behind the user's back"),
        entry(.killReboot, .inBackground, ["crash-recovery"], "a reboot while the app was suspended in the background"),
        entry(.relaunch, .cellularOnly, ["cellular-policy", "crash-recovery"],
              "a relaunch while only cellular is up: the restored downloads keep their cellular setting"),
        entry(.relaunch, .mayNotUseCellular, ["cellular-policy", "crash-recovery"],
              "a relaunch with a download that may not use cellular: the setting survives (novoda #442)"),
        entry(.relaunch, .midSegment, ["crash-recovery", "integrity"],
              "a relaunch with a download mid-way: one transfer per download (mux-player-swift PR #80)"),
        entry(.background, .midSegment, ["license-before-background", "liveness"], "downloads go on in the background"),
        entry(.killCrash, .paused, ["pause-holds", "crash-recovery"],
              "a crash while a download is paused: the relaunched app keeps the pause, owes no completion, fetches nothing"),
        entry(.relaunch, .paused, ["pause-holds"],
              "a relaunch with a download paused: it stays paused until the user resumes it (no unpause after relaunch)"),
        entry(.prepareForBackground, .license, ["license-before-background"],
              "the app told of the background mid-exchange: it finishes the exchange before it answers"),
        entry(.backgroundUnprepared, .license, ["license-before-background"],
              "the app sent to the background mid-exchange with no warning: no license request in the background, "
                + "the exchange taken up after the foreground"),
    ]

    static let user: [Entry] = [
        entry(.pause, .midSegment, ["pause-holds"], "a pause mid-segment: nothing more of it stored or delivered"),
        entry(.resume, .paused, ["pause-holds", "liveness"], "a resume goes on from where it stopped"),
        entry(.resume, .offline, ["auto-suspend-on-disconnect", "pause-holds"],
              "a resume with no interface up: suspended(network), never a downloading claim"),
        entry(.cancel, .midSegment, ["cancel-delete-clean"], "a cancel mid-transfer leaves nothing behind"),
        entry(.delete, .settled, ["cancel-delete-clean"], "a delete of a finished package leaves nothing behind"),
        entry(.cancel, .paused, ["cancel-delete-clean"], "the cancel of a paused download leaves nothing behind"),
        entry(.delete, .paused, ["cancel-delete-clean"], "the delete of a paused download leaves nothing behind"),
        entry(.delete, .midSegment, ["cancel-delete-clean"], "a delete during a transfer stops it and leaves nothing behind"),
        entry(.cellularForbidden, .midSegment, ["cellular-policy"], "the cellular setting turned off mid-download"),
        entry(.cellularAllowed, .suspendedForNetwork, ["cellular-policy", "auto-suspend-on-disconnect"],
              "cellular allowed while a download waits for the network: it keeps its own setting, later ones use the new"),
        entry(.request, .offline, ["auto-suspend-on-disconnect", "liveness"], "a request with no network: waits, then goes"),
        entry(.request, .cellularOnly, ["cellular-policy"], "a request while only cellular is up"),
    ]

    /// The coverage of a run whose scenarios created `covered` (scenario name → its coverage, in run order).
    public static func runCoverage(_ covered: [(scenario: String, coverage: ScenarioCoverage)]) -> RunCoverage {
        var byPair: [SituationPair: [String]] = [:]
        for (scenario, coverage) in covered {
            for pair in coverage.pairs.map(\.pair) where !(byPair[pair]?.contains(scenario) ?? false) {
                byPair[pair, default: []].append(scenario)
            }
        }
        let meaningful = Self.meaningful.map { entry in
            MeaningfulPairCoverage(
                pair: entry.pair, properties: entry.properties, why: entry.why, scenarios: byPair[entry.pair] ?? [])
        }
        let listed = Set(Self.meaningful.map(\.pair))
        return RunCoverage(meaningful: meaningful, otherPairs: byPair.keys.filter { !listed.contains($0) }.sorted())
    }

    /// A scenario's coverage from its situations: each (incident, context) pair once.
    public static func coverage(of situations: [Situation]) -> ScenarioCoverage {
        ScenarioCoverage(pairs: situations.flatMap { situation in
            situation.context.map { context in
                CoveredPair(
                    pair: SituationPair(incident: situation.incident.rawValue, context: context.rawValue),
                    t: situation.t, evidence: situation.evidence)
            }
        })
    }
}
