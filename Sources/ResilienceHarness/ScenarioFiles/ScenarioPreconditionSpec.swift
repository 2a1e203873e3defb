import AppProtocol
import BenchCore

/// A precondition as a scenario file names it: one of `ScenarioPreconditions`, with
/// its parameter. docs/scenario-format.md lists the names.
public enum ScenarioPreconditionSpec: Sendable, Hashable {
    /// `outage-hit-a-transfer: MODE`: WiFi went down in MODE while a transfer was in flight through it.
    case outageHitATransfer(DownMode)
    /// `cellular-only-during-downloads`.
    case cellularOnlyDuringDownloads
    /// `kills-with-bytes-in-flight: N`: N kills while media bytes were on their way, relaunched after a crash.
    case killsWithBytesInFlight(Int)
    /// `relaunch-interrupting: KIND`: a relaunch after KIND found a download incomplete.
    case relaunchInterrupting(RelaunchKind)
    /// `license-exchange-before-background`.
    case licenseExchangeBeforeBackground
    /// `pause-during-a-transfer`.
    case pauseDuringATransfer
    /// `cancel-of-an-incomplete-download`.
    case cancelOfAnIncompleteDownload
    /// `offline-inspection`.
    case offlineInspection
    /// `inspection-after-a-rental-expired`.
    case inspectionAfterARentalExpired
    /// `situation: INCIDENT × CONTEXT`: the scenario created that situation pair
    /// (docs/situations.md), e.g. `situation: lifecycle.kill-crash × phase:paused`.
    case situation(Incident, SituationContext)

    /// One of each name (with an example parameter): the names a file may use.
    public static let oneOfEach: [ScenarioPreconditionSpec] = [
        .outageHitATransfer(.reset), .cellularOnlyDuringDownloads, .killsWithBytesInFlight(3),
        .relaunchInterrupting(.userForceQuit), .licenseExchangeBeforeBackground, .pauseDuringATransfer,
        .cancelOfAnIncompleteDownload, .offlineInspection, .inspectionAfterARentalExpired,
        .situation(.killCrash, .paused),
    ]

    /// The name a file uses.
    public var key: String {
        switch self {
        case .outageHitATransfer: "outage-hit-a-transfer"
        case .cellularOnlyDuringDownloads: "cellular-only-during-downloads"
        case .killsWithBytesInFlight: "kills-with-bytes-in-flight"
        case .relaunchInterrupting: "relaunch-interrupting"
        case .licenseExchangeBeforeBackground: "license-exchange-before-background"
        case .pauseDuringATransfer: "pause-during-a-transfer"
        case .cancelOfAnIncompleteDownload: "cancel-of-an-incomplete-download"
        case .offlineInspection: "offline-inspection"
        case .inspectionAfterARentalExpired: "inspection-after-a-rental-expired"
        case .situation: "situation"
        }
    }

    /// The parameter as a file writes it; nil for a precondition without one.
    public var parameter: String? {
        switch self {
        case .outageHitATransfer(let mode): mode.rawValue
        case .killsWithBytesInFlight(let count): String(count)
        case .relaunchInterrupting(let kind): kind.rawValue
        case let .situation(incident, context): Self.pair(incident, context)
        default: nil
        }
    }

    /// `INCIDENT × CONTEXT`, as a file writes a situation pair.
    static func pair(_ incident: Incident, _ context: SituationContext) -> String {
        "\(incident.rawValue) × \(context.rawValue)"
    }

    /// What the parameter of the precondition named `key` is; nil when it takes none.
    static func parameterKind(of key: String) -> String? {
        switch key {
        case "outage-hit-a-transfer": "a down mode: " + DownMode.allCases.map(\.rawValue).joined(separator: ", ")
        case "kills-with-bytes-in-flight": "a number of kills, at least 1"
        case "relaunch-interrupting": "a relaunch kind: " + RelaunchKind.allCases.filter { $0 != .clean }
            .map(\.rawValue).joined(separator: ", ")
        case "situation": "a situation pair INCIDENT × CONTEXT (docs/situations.md), e.g. lifecycle.kill-crash × phase:paused"
        default: nil
        }
    }

    /// The precondition the runner judges.
    public var precondition: Precondition {
        switch self {
        case .outageHitATransfer(let mode): ScenarioPreconditions.outageHitATransfer(mode)
        case .cellularOnlyDuringDownloads: ScenarioPreconditions.cellularOnlyDuringDownloads
        case .killsWithBytesInFlight(let count): ScenarioPreconditions.killsWithBytesInFlight(count)
        case .relaunchInterrupting(let kind): ScenarioPreconditions.relaunchInterrupting(kind)
        case .licenseExchangeBeforeBackground: ScenarioPreconditions.licenseExchangeBeforeBackground
        case .pauseDuringATransfer: ScenarioPreconditions.pauseDuringATransfer
        case .cancelOfAnIncompleteDownload: ScenarioPreconditions.cancelOfAnIncompleteDownload
        case .offlineInspection: ScenarioPreconditions.offlineInspection
        case .inspectionAfterARentalExpired: ScenarioPreconditions.inspectionAfterARentalExpired
        case let .situation(incident, context): ScenarioPreconditions.situation(incident, context)
        }
    }
}
