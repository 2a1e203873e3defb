/// What a download owes at an instant, derived from the world and the harness's actions
/// only (`ObligationModel`; docs/obligations.md). Each property judges one or more of
/// these, and every violation names the one it broke (`Evidence.obligation`).
public enum Obligation: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Wanted by the user, the app running, an interface it may use up and reachable
    /// (and, for a protected download in the background, its license held): bytes reach
    /// it at least once per stall timeout + backoff bound (`liveness`).
    case transfer = "transfer"
    /// Wanted, the app running, no interface it may use up: `suspended(network)` (or
    /// `suspended(cellularNotAllowed)`) within the bound, no `→ downloading` once the app
    /// knows, `downloading` again within the bound once one returns
    /// (`auto-suspend-on-disconnect`, `cellular-policy`).
    case waitForNetwork = "wait-for-network"
    /// Paused by the user, until the user resumes, cancels or deletes it, whatever the
    /// network does and across kills and relaunches after a crash, memory pressure or a
    /// clean exit: `suspended(user)`, no media request, nothing more stored (`pause-holds`).
    case holdPause = "hold-pause"
    /// Resumed by the user: leaves `suspended(user)` within the bound and goes on
    /// (`pause-holds`).
    case goOnAfterResume = "go-on-after-resume"
    /// In flight at a kill, relaunched after a crash, memory pressure or a clean exit:
    /// nothing stored whole fetched again, what was stored in part resumed by Range, its
    /// claims true to the disk (`crash-recovery`).
    case recover = "recover"
    /// In flight at a kill, relaunched after a force-quit or a reboot while suspended:
    /// reported `failed` as its first change after the launch, within the bound
    /// (`crash-recovery`).
    case failAtLaunch = "fail-at-launch"
    /// Wanted at the end: it ends `downloaded` (`crash-recovery`, `pause-holds`,
    /// `auto-suspend-on-disconnect`, each for the situation it exists for).
    case complete = "complete"
    /// Cancelled or deleted by the user: nothing of it left, unknown to the app
    /// (`cancel-delete-clean`).
    case leaveNothing = "leave-nothing"
    /// Protected and wanted: no encrypted segment asked for before a license reached it;
    /// no `licenseAcquired` claim before one did (`license-before-background`).
    case licenseFirst = "license-first"
    /// Protected, unfinished, and the app told the background was coming
    /// (`prepareForBackground` before it): its license reached it before the background
    /// (`license-before-background`).
    case licenseBeforeBackground = "license-before-background"
    /// The app in the background: no license request sent (`license-before-background`).
    case noLicenseRequestInBackground = "no-license-request-in-background"
    /// Protected, without its license when the app went to the background unprepared:
    /// its license exchange taken up again after the foreground, or the download failed
    /// with a license error (`license-before-background`).
    case licenseAfterForeground = "license-after-foreground"
    /// Always: a download ends `failed` only for a permanent cause the world showed
    /// (`FailureCause`); the property of the situation it failed in says so
    /// (`justified-failure`, `auto-suspend-on-disconnect`, `license-before-background`,
    /// `crash-recovery`).
    case failOnlyForCause = "fail-only-for-cause"
    /// A downloaded one: the package the harness reads is whole and byte-identical, plays
    /// with every interface down, refuses to once its rental expired (`integrity`,
    /// `offline-playback`, `expired-rental-refuses-playback`).
    case keepPackage = "keep-package"
    /// Always: not more bytes over cellular than allowed, not around the conditioner
    /// (`cellular-policy`).
    case respectCellular = "respect-cellular"
    /// Always: retries back off (`bounded-retries`).
    case backOff = "back-off"
    /// Always: what the app reports is true to the guides' table and to itself
    /// (`legal-transitions`, `monotonic-progress`).
    case reportTruly = "report-truly"

    /// In words, for evidence and reports, e.g. "hold the pause".
    public var words: String {
        switch self {
        case .transfer: "move bytes"
        case .waitForNetwork: "wait for the network"
        case .holdPause: "hold the pause"
        case .goOnAfterResume: "go on after the resume"
        case .recover: "recover what the disk held"
        case .failAtLaunch: "fail at the launch"
        case .complete: "complete"
        case .leaveNothing: "leave nothing behind"
        case .licenseFirst: "a license first"
        case .licenseBeforeBackground: "a license before the background"
        case .noLicenseRequestInBackground: "no license request in the background"
        case .licenseAfterForeground: "the license after the foreground"
        case .failOnlyForCause: "fail only for a permanent cause"
        case .keepPackage: "keep a whole package"
        case .respectCellular: "respect the cellular setting"
        case .backOff: "back off"
        case .reportTruly: "report truly"
        }
    }

    public static func < (a: Obligation, b: Obligation) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
