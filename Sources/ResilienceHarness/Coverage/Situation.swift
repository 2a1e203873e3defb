import AppProtocol
import BenchCore

/// What happened at a moment of a scenario, as the evidence shows it: one side of a
/// situation (docs/situations.md). Each has a stable id (`dimension.what`), the key of
/// coverage in reports and baselines.
public enum Incident: String, Sendable, Hashable, CaseIterable, Comparable {
    // The network (the conditioner's events; the origin's log for cut bodies).
    case downReset = "network.down-reset"
    case downRefuse = "network.down-refuse"
    case downBlackhole = "network.down-blackhole"
    case pathUpdateLate = "network.path-update-late"
    case pathUpdateWithheld = "network.path-update-withheld"
    case wifiBack = "network.wifi-back"
    case cellularBackAlone = "network.cellular-back-alone"
    case bodyCut = "network.body-cut"
    case bodyClosed = "network.body-closed"
    // The origin (its log: responses a fault rule answered).
    case originStatusFault = "origin.status-fault"
    case captivePortal = "origin.captive-portal"
    case slowLicense = "origin.slow-license"
    // The app's lifecycle (the harness's own actions).
    case killCrash = "lifecycle.kill-crash"
    case killMemoryPressure = "lifecycle.kill-memory-pressure"
    case killForceQuit = "lifecycle.kill-force-quit"
    case killReboot = "lifecycle.kill-reboot"
    case relaunch = "lifecycle.relaunch"
    case background = "lifecycle.background"
    case foreground = "lifecycle.foreground"
    case prepareForBackground = "lifecycle.prepare-for-background"
    case backgroundUnprepared = "lifecycle.background-unprepared"
    // The user (the harness's own actions).
    case request = "user.request"
    case pause = "user.pause"
    case resume = "user.resume"
    case cancel = "user.cancel"
    case delete = "user.delete"
    case cellularAllowed = "user.cellular-allowed"
    case cellularForbidden = "user.cellular-forbidden"

    /// The dimension: the id's first part (`network`, `origin`, `lifecycle`, `user`).
    public var dimension: String { String(rawValue.prefix { $0 != "." }) }

    /// In words, for reports.
    public var words: String {
        switch self {
        case .downReset: "an interface went down, its connections reset"
        case .downRefuse: "an interface went down, its connections closed"
        case .downBlackhole: "an interface went dark (blackhole)"
        case .pathUpdateLate: "the path update came late"
        case .pathUpdateWithheld: "the path update was withheld"
        case .wifiBack: "WiFi came back"
        case .cellularBackAlone: "cellular came back alone"
        case .bodyCut: "a response body was cut (reset) with its interface up"
        case .bodyClosed: "a response body ended early (closed) with its interface up"
        case .originStatusFault: "the origin answered an error status"
        case .captivePortal: "a captive portal answered in place of content"
        case .slowLicense: "the license server answered slowly"
        case .killCrash: "the app crashed"
        case .killMemoryPressure: "the system ended the app for memory"
        case .killForceQuit: "the user force-quit the app"
        case .killReboot: "the device rebooted"
        case .relaunch: "the app was launched again"
        case .background: "the app went to the background"
        case .foreground: "the app came to the foreground"
        case .prepareForBackground: "the app was asked to get ready for the background"
        case .backgroundUnprepared: "the app went to the background unprepared"
        case .request: "the user requested a download"
        case .pause: "the user paused a download"
        case .resume: "the user resumed a download"
        case .cancel: "the user cancelled a download"
        case .delete: "the user deleted a download"
        case .cellularAllowed: "the user allowed cellular"
        case .cellularForbidden: "the user forbade cellular"
        }
    }

    public static func < (a: Incident, b: Incident) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// The kill of a relaunch kind (nil for a clean one).
    static func kill(_ kind: RelaunchKind) -> Incident? {
        switch kind {
        case .clean: nil
        case .crash: .killCrash
        case .memoryPressure: .killMemoryPressure
        case .userForceQuit: .killForceQuit
        case .rebootWhileSuspended: .killReboot
        }
    }
}

/// What held when an incident happened: the other side of a situation. Each has a
/// stable id (`dimension:what`).
public enum SituationContext: String, Sendable, Hashable, CaseIterable, Comparable {
    // Which interfaces were up.
    case bothUp = "network:both-up"
    case wifiOnly = "network:wifi-only"
    case cellularOnly = "network:cellular-only"
    case offline = "network:offline"
    // The phase of a download that had not settled (one context per such download).
    case requested = "phase:requested"
    case license = "phase:license"
    case playlists = "phase:playlists"
    case midSegment = "phase:mid-segment"
    case lastSegment = "phase:last-segments"
    case suspendedForNetwork = "phase:suspended-network"
    case paused = "phase:paused"
    case settled = "phase:settled"
    // Whether an unsettled download may use cellular.
    case mayUseCellular = "download:may-use-cellular"
    case mayNotUseCellular = "download:may-not-use-cellular"
    // The app's lifecycle.
    case inBackground = "app:background"

    /// In words, for reports.
    public var words: String {
        switch self {
        case .bothUp: "WiFi and cellular up"
        case .wifiOnly: "only WiFi up"
        case .cellularOnly: "only cellular up"
        case .offline: "no interface up"
        case .requested: "a download requested, nothing fetched yet"
        case .license: "a download fetching its license"
        case .playlists: "a download fetching its playlists"
        case .midSegment: "a download mid-segment"
        case .lastSegment: "a download on its last segments (the final fifth of its rendition)"
        case .suspendedForNetwork: "a download with no interface it may use up (it should be suspended)"
        case .paused: "a download paused"
        case .settled: "every download settled"
        case .mayUseCellular: "a download that may use cellular"
        case .mayNotUseCellular: "a download that may not use cellular"
        case .inBackground: "the app in the background"
        }
    }

    public static func < (a: SituationContext, b: SituationContext) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// One situation a scenario created: an incident at `t`, what held then, and the evidence.
public struct Situation: Sendable, Hashable {
    public var incident: Incident
    public var t: UInt64
    public var context: Set<SituationContext>
    /// What in the trace shows the incident, in words.
    public var evidence: String
}
